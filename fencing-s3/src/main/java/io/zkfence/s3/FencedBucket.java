package io.zkfence.s3;

import io.zkfence.fencing.internal.Backoff;
import io.zkfence.fencing.internal.FenceObserver;
import io.zkfence.fencing.internal.ObjectState;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * Fenced writes to one bucket of an S3-compatible store: every object carries the fencing token
 * of the lock holder that wrote it, and a write, delete or multipart completion presenting a
 * token lower than the stored one is refused with {@link S3StaleTokenException}.
 *
 * <h2>Contract</h2>
 * <ul>
 * <li>Tokens are positive {@code long}s (as in fencing-jdbc) from a monotonic source (lock-core grants, or any
 *     other); a token {@code >=} the stored one is accepted, a lower one is rejected.</li>
 * <li>The token is stored as user metadata ({@code x-amz-meta-fence-token} by default) in the
 *     same request as the bytes, so bytes and token change together.</li>
 * <li>Every write is conditional: {@code If-Match: <ETag>} on the state the token check was made
 *     against, {@code If-None-Match: *} when there was no object. If the object changed in between
 *     (412, 409, or 404 on If-Match), the adapter re-reads and decides again: a newer token that won
 *     the race is a stale rejection; an equal or lower one is retried, at most
 *     {@link S3FenceConfig#maxConflictRetries()} times with jittered backoff, then
 *     {@link FenceContentionException}.</li>
 * <li>Steady state: the ETag and token of the last state seen for a key are cached, so a writer
 *     rewriting a key it wrote last sends exactly one request (the conditional PUT); only a lost
 *     race costs the extra HEAD.</li>
 * <li>Fail closed: before the first request of each kind (put, multipart completion, delete) a
 *     self-check sends probe requests whose precondition must fail; a store that accepts them
 *     gets {@link ConditionalWritesUnsupportedException} instead of unfenced writes.</li>
 * <li>Objects written without the fence (no token metadata) are adopted by the first fenced
 *     write. Deleting an object removes its token from the store with it; this instance still
 *     remembers the highest token it saw on the key, so a lower token cannot re-create it here.</li>
 * <li>No call by a lower-token holder removes an object: on a store whose AbortMultipartUpload
 *     also deletes the object at the key (the self-check learns this), the adapter never aborts.</li>
 * <li>Every failure is an unchecked {@link S3FenceException} naming bucket and key; a rejected
 *     request writes nothing.</li>
 * </ul>
 *
 * <h2>What the ETag conditions can and cannot see</h2>
 * On AWS S3, MinIO and S3Mock the ETag is a digest of the bytes alone ({@code md5} for a plain
 * PUT, {@code md5(md5)-1} for a one-part multipart upload), never of the metadata holding the
 * token; a stale writer passes its If-Match whenever the object has an ETag it holds again.
 * <ul>
 * <li>Protected: a newer holder rewriting the bytes already stored. A put whose body matches the
 *     current ETag in either form is sent as a one-part multipart upload, so the plain ETag is
 *     replaced and does not come back through further same-bytes rewrites; one-part ETags, which
 *     such rewrites reproduce, are never kept in the ETag cache.</li>
 * <li>Not protected: bytes coming back to what a paused holder saw. A newer holder writing other
 *     bytes and then the paused holder's bytes again (X, Y, X) restores the plain ETag it holds;
 *     and a holder paused between reading an object whose ETag is already one-part and writing
 *     it is overtaken by a newer holder rewriting the same bytes once more. Same bytes in the
 *     same multipart split reproduce a multipart ETag.</li>
 * </ul>
 * When content can repeat an earlier value, put the token or a write id in the body. See
 * {@code docs/fencing-s3.md} ("The ETag caveat") and what the adapter relies on from the store.
 *
 * <p>Thread-safe. Create one instance per bucket and share it: the ETag cache and the self-check
 * verdict live in the instance. The {@link S3Client} stays the caller's to configure and close.
 */
public final class FencedBucket {

    private final S3Client s3;
    private final S3FenceConfig config;
    private final String bucket;
    private final TokenMetadata tokens;
    private final EtagCache cache;
    private final StateReader reader;
    private final ConditionalWriter writer;
    private final SelfCheck selfCheck;
    private final OnePartUpload onePartUpload;
    /** For {@link FencedBucketMetrics}; empty without it. */
    final FenceObserver.All observers = new FenceObserver.All(
            (o, e) -> LoggerFactory.getLogger(FencedBucket.class).warn("fence observer {} failed", o, e));

    private FencedBucket(S3Client s3, S3FenceConfig config) {
        this.s3 = Objects.requireNonNull(s3, "s3");
        this.config = Objects.requireNonNull(config, "config");
        this.bucket = config.bucket();
        this.tokens = new TokenMetadata(bucket, config.tokenMetadataKey());
        this.cache = new EtagCache(config.etagCacheSize());
        this.reader = new StateReader(s3, bucket, tokens, cache);
        this.writer = new ConditionalWriter(
                bucket,
                reader,
                cache,
                Backoff.exponential(config.backoffBase(), config.backoffMax()),
                config.maxConflictRetries(),
                observers);
        this.selfCheck = new SelfCheck(s3, bucket, config.selfCheckKeyPrefix(), observers);
        this.onePartUpload = new OnePartUpload(s3, bucket, selfCheck);
    }

    /**
     * Fenced access to {@code config.bucket()} through {@code s3}. Sends no request; the self-check
     * runs before the first fenced request (or call {@link #verifyConditionalWrites()} at startup).
     */
    public static FencedBucket create(S3Client s3, S3FenceConfig config) {
        return new FencedBucket(s3, config);
    }

    /** This bucket's settings. */
    public S3FenceConfig config() {
        return config;
    }

    /** Same as {@link #put(String, long, RequestBody, Consumer)} without extra request settings. */
    public FencedWrite put(String key, long token, RequestBody body) {
        return put(key, token, body, request -> {});
    }

    /**
     * Writes {@code body} to {@code key} if no higher token is stored there, storing {@code token}
     * with it.
     *
     * @param key the object key
     * @param token the caller's fencing token, {@code >= 1}
     * @param body the bytes; must be re-readable ({@code RequestBody.fromBytes/fromString/fromFile/
     *        fromByteBuffer}): the adapter reads it once to compute its MD5 and the SDK reads it to send
     * @param request sets other headers of the PUT (content type, cache control, user metadata,
     *        encryption, ...); must not set bucket, key, If-Match, If-None-Match or the token metadata
     * @return the accepted write: new ETag and the stored token
     * @throws S3StaleTokenException when the object carries a higher token; nothing was written
     * @throws FenceContentionException when every attempt lost a race to equal or lower tokens
     * @throws ConditionalWritesUnsupportedException when the store does not enforce conditions
     * @throws InvalidStoredTokenException when the stored token metadata is not a number
     * @throws StoreException when the store refused or failed the request (access denied, no bucket, ...)
     * @throws IllegalArgumentException for a token below 1, a key outside the key rules (see
     *         {@code docs/fencing-s3.md}, "Keys"), or a request setting a field the fence owns;
     *         nothing was sent
     */
    public FencedWrite put(String key, long token, RequestBody body, Consumer<PutObjectRequest.Builder> request) {
        checkArguments("PutObject", key, token);
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(request, "request");
        PutObjectRequest.Builder custom = PutObjectRequest.builder();
        request.accept(custom);
        PutObjectRequest template = custom.build();
        refuseFenceOwnedFields(key, template.bucket(), template.key(), template.ifMatch(), template.ifNoneMatch());
        PutObjectRequest base = template.toBuilder()
                .bucket(bucket)
                .key(key)
                .metadata(tokens.with(key, template.hasMetadata() ? template.metadata() : null, token))
                .build();

        selfCheck.ensure(SelfCheck.Kind.PUT, key);
        BodyDigest digest = new BodyDigest(bucket, key, body);
        return writer.run(key, token, "PutObject", current -> {
            try {
                return putAgainst(current, key, token, base, body, digest);
            } catch (IllegalStateException e) {
                // The SDK's answer to a body it cannot read again (a one-shot stream): name it.
                throw new S3FenceException(
                        bucket,
                        key,
                        "could not read the request body of PutObject on "
                                + S3FenceException.location(bucket, key) + " again (" + e.getMessage()
                                + "); the body must be"
                                + " re-readable (RequestBody.fromBytes/fromString/fromFile/fromByteBuffer); nothing was"
                                + " written",
                        e);
            }
        });
    }

    private FencedWrite putAgainst(
            ObjectState current, String key, long token, PutObjectRequest base, RequestBody body, BodyDigest digest) {
        if (current.exists() && digest.sameBytesAs(current.eTag())) {
            // Same bytes as stored: a plain PUT would keep the ETag, or bring back the plain
            // one a paused holder may still hold (see OnePartUpload).
            selfCheck.ensure(SelfCheck.Kind.COMPLETE_MULTIPART, key);
            CompleteMultipartUploadResponse done = onePartUpload.send(key, token, base, body, current);
            return accepted(key, token, done.eTag(), done.versionId());
        }
        PutObjectRequest conditional = current.exists()
                ? base.toBuilder().ifMatch(current.eTag()).build()
                : base.toBuilder().ifNoneMatch("*").build();
        PutObjectResponse response = s3.putObject(conditional, body);
        return accepted(key, token, response.eTag(), response.versionId());
    }

    /**
     * Deletes {@code key} if no higher token is stored there. Afterwards the store keeps no token
     * for the key; this instance remembers {@code token} and refuses lower ones on the key, while
     * a {@code FencedBucket} that never saw the key lets the next write create it with any token.
     *
     * @return true when this call deleted an object; false when the adapter found none when it
     *         last looked. That includes an object this very call deleted when the SDK retried the
     *         request after losing the first attempt's answer (timeout, reset, 5xx): the retry
     *         finds nothing, so false means "absent now", not "this call deleted nothing"
     * @throws S3StaleTokenException when the object carries a higher token; nothing was deleted
     * @throws S3FenceException for the other failures listed on {@link #put(String, long, RequestBody, Consumer)}
     * @throws IllegalArgumentException for a token below 1 or a key outside the key rules; nothing was sent
     */
    public boolean delete(String key, long token) {
        checkArguments("DeleteObject", key, token);
        selfCheck.ensure(SelfCheck.Kind.DELETE, key);
        return writer.run(key, token, "DeleteObject", current -> {
            if (!current.exists()) {
                requireBucket(key, "DeleteObject", "nothing was deleted");
                return false;
            }
            s3.deleteObject(r -> r.bucket(bucket).key(key).ifMatch(current.eTag()));
            cache.forget(key);
            cache.noteToken(key, token);
            return true;
        });
    }

    /** Same as {@link #startMultipartUpload(String, long, Consumer)} without extra request settings. */
    public FencedMultipartUpload startMultipartUpload(String key, long token) {
        return startMultipartUpload(key, token, request -> {});
    }

    /**
     * Starts a multipart upload to {@code key} that will store {@code token}. The token is checked
     * now (so a stale holder does not upload parts for nothing) and again, atomically, when
     * {@link FencedMultipartUpload#complete()} sends the conditional CompleteMultipartUpload.
     *
     * @param request sets other headers of the upload (content type, metadata, encryption, ...);
     *        must not set bucket, key or the token metadata
     * @throws S3StaleTokenException when the object carries a higher token, or is gone but this
     *         instance saw a higher token on it; no upload was started
     * @throws S3FenceException for the other failures listed on {@link #put(String, long, RequestBody, Consumer)}
     * @throws IllegalArgumentException for a token below 1, a key outside the key rules, or a
     *         request setting a field the fence owns; nothing was sent
     */
    public FencedMultipartUpload startMultipartUpload(
            String key, long token, Consumer<CreateMultipartUploadRequest.Builder> request) {
        checkArguments("CreateMultipartUpload", key, token);
        Objects.requireNonNull(request, "request");
        CreateMultipartUploadRequest.Builder custom = CreateMultipartUploadRequest.builder();
        request.accept(custom);
        CreateMultipartUploadRequest template = custom.build();
        refuseFenceOwnedFields(key, template.bucket(), template.key(), null, null);
        CreateMultipartUploadRequest create = template.toBuilder()
                .bucket(bucket)
                .key(key)
                .metadata(tokens.with(key, template.hasMetadata() ? template.metadata() : null, token))
                .build();

        selfCheck.ensure(SelfCheck.Kind.COMPLETE_MULTIPART, key);
        ObjectState current = cache.usableFor(key, token);
        if (current == null) {
            current = reader.head(key);
        }
        writer.rejectStale(key, token, "CreateMultipartUpload", current);
        String uploadId;
        try {
            uploadId = s3.createMultipartUpload(create).uploadId();
        } catch (SdkException e) {
            throw S3Errors.translate(e, bucket, key, "CreateMultipartUpload", true);
        }
        UploadPartRequest.Builder partTemplate = UploadPartRequest.builder();
        RequestFields.copy(create, partTemplate);
        return new FencedMultipartUpload(
                s3, bucket, key, token, uploadId, partTemplate.build(), writer, cache, selfCheck);
    }

    /**
     * Reads {@code key} with the token of the holder that wrote it.
     *
     * @return the object, or empty when there is none
     * @throws InvalidStoredTokenException when the stored token metadata is not a number
     * @throws StoreException when the store refused or failed the request
     */
    public Optional<FencedObject> read(String key) {
        checkKey("GetObject", key);
        ResponseBytes<GetObjectResponse> bytes;
        try {
            bytes = s3.getObjectAsBytes(r -> r.bucket(bucket).key(key));
        } catch (SdkException e) {
            if (S3Errors.hasErrorCode(e, "NoSuchKey")) {
                return Optional.empty();
            }
            throw S3Errors.translate(e, bucket, key, "GetObject", false);
        }
        GetObjectResponse response = bytes.response();
        OptionalLong token = tokens.parse(key, response.metadata());
        return Optional.of(new FencedObject(
                bucket,
                key,
                token,
                response.eTag(),
                response.contentType(),
                response.metadata(),
                response.versionId(),
                bytes.asByteArrayUnsafe()));
    }

    /**
     * The token stored with {@code key}, read with one HEAD request; empty when there is no object
     * or it carries no token. When there is no object, one HeadBucket confirms the bucket exists
     * (HEAD answers 404 for a missing bucket too).
     *
     * @throws InvalidStoredTokenException when the stored token metadata is not a number
     * @throws StoreException when the store refused or failed the request, the bucket does not
     *         exist, or the store answered without an ETag
     */
    public OptionalLong token(String key) {
        checkKey("HeadObject", key);
        ObjectState state = reader.head(key);
        if (!state.exists()) {
            requireBucket(key, "HeadObject", "no token was read");
        }
        return state.token();
    }

    /**
     * Runs every self-check now (conditional put, multipart completion and delete) instead of
     * before the first request of each kind. Call it at startup to fail fast; it probes at most
     * once per kind for the life of this instance.
     *
     * @throws ConditionalWritesUnsupportedException when the store ignores a precondition
     * @throws StoreException when a probe request fails for another reason
     */
    public void verifyConditionalWrites() {
        String forKey = config.selfCheckKeyPrefix();
        selfCheck.ensure(SelfCheck.Kind.PUT, forKey);
        selfCheck.ensure(SelfCheck.Kind.COMPLETE_MULTIPART, forKey);
        selfCheck.ensure(SelfCheck.Kind.DELETE, forKey);
    }

    private FencedWrite accepted(String key, long token, String eTag, String versionId) {
        cache.rememberWrite(key, eTag, token);
        return new FencedWrite(bucket, key, token, eTag, Optional.ofNullable(versionId));
    }

    /** HEAD answers 404 for a missing bucket too; before reporting "nothing to delete", make sure. */
    private void requireBucket(String key, String operation, String outcome) {
        try {
            s3.headBucket(r -> r.bucket(bucket));
        } catch (SdkException e) {
            if (S3Errors.hasStatus(e, 404)) {
                throw new StoreException(
                        bucket,
                        key,
                        "HeadBucket",
                        404,
                        "NoSuchBucket",
                        false,
                        "bucket '" + bucket + "' does not exist (" + operation + " on "
                                + S3FenceException.location(bucket, key) + "); " + outcome,
                        e);
            }
            throw S3Errors.translate(e, bucket, key, "HeadBucket", false);
        }
    }

    private void checkArguments(String operation, String key, long token) {
        checkKey(operation, key);
        if (token < 1) {
            throw new IllegalArgumentException("token must be >= 1 but was " + token + " (" + operation + " on "
                    + S3FenceException.location(bucket, key) + "); nothing was sent");
        }
    }

    private void checkKey(String operation, String key) {
        Objects.requireNonNull(key, () -> "key must not be null (" + operation + " in bucket '" + bucket + "')");
        ObjectKeys.check(key, operation, bucket);
    }

    private void refuseFenceOwnedFields(
            String key, String customBucket, String customKey, String ifMatch, String ifNoneMatch) {
        if (customBucket != null || customKey != null || ifMatch != null || ifNoneMatch != null) {
            throw new IllegalArgumentException("the request customizer for " + S3FenceException.location(bucket, key)
                    + " must not set bucket, key, If-Match or If-None-Match: the fence sets them itself");
        }
    }
}

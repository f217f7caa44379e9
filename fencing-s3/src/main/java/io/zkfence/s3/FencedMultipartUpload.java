package io.zkfence.s3;

import io.zkfence.fencing.FencingException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * A multipart upload that becomes visible only through a fenced, conditional
 * CompleteMultipartUpload: parts are uploaded freely, and {@link #complete()} applies the same
 * token rule as {@link FencedBucket#put}. Start one with {@link FencedBucket#startMultipartUpload}.
 *
 * <pre>{@code
 * try (FencedMultipartUpload upload = bucket.startMultipartUpload("exports/2024-06.csv", token)) {
 *     upload.uploadPart(1, RequestBody.fromFile(part1));
 *     upload.uploadPart(2, RequestBody.fromFile(part2));
 *     upload.complete();
 * } // close() aborts the upload unless it completed
 * }</pre>
 *
 * <p>Parts may be uploaded from several threads. When {@link #complete()} finds a higher token
 * stored, or gives up on contention, it aborts the upload and throws; when the store fails it
 * for another reason (for example a timeout) the upload stays open so that {@code complete()} can
 * be called again, and {@link #close()} aborts it if the caller gives up.
 */
public final class FencedMultipartUpload implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FencedMultipartUpload.class);

    /** S3's bounds on part numbers. */
    private static final int MAX_PART_NUMBER = 10_000;

    private enum Phase {
        OPEN,
        COMPLETED,
        ABORTED
    }

    private final S3Client s3;
    private final String bucket;
    private final String key;
    private final long token;
    private final String uploadId;
    private final UploadPartRequest partTemplate;
    private final ConditionalWriter writer;
    private final EtagCache cache;
    private final SelfCheck selfCheck;
    private final ConcurrentSkipListMap<Integer, String> partEtags = new ConcurrentSkipListMap<>();
    private volatile Phase phase = Phase.OPEN;

    FencedMultipartUpload(
            S3Client s3,
            String bucket,
            String key,
            long token,
            String uploadId,
            UploadPartRequest partTemplate,
            ConditionalWriter writer,
            EtagCache cache,
            SelfCheck selfCheck) {
        this.s3 = s3;
        this.bucket = bucket;
        this.key = key;
        this.token = token;
        this.uploadId = uploadId;
        this.partTemplate = partTemplate;
        this.writer = writer;
        this.cache = cache;
        this.selfCheck = selfCheck;
    }

    /** The object key being uploaded. */
    public String key() {
        return key;
    }

    /** The token the object will carry once completed. */
    public long token() {
        return token;
    }

    /** The store's id of this upload. */
    public String uploadId() {
        return uploadId;
    }

    /**
     * Uploads part {@code partNumber} (1 to 10 000; parts are joined in number order). Uploading a
     * number again replaces that part. Every part but the last must meet the store's minimum size
     * (5 MiB on AWS S3).
     *
     * @return the part's ETag
     * @throws StoreException when the store refused or failed the part
     * @throws IllegalStateException when the upload was already completed or aborted
     */
    public String uploadPart(int partNumber, RequestBody body) {
        Objects.requireNonNull(body, "body");
        if (partNumber < 1 || partNumber > MAX_PART_NUMBER) {
            throw new IllegalArgumentException("partNumber must be between 1 and " + MAX_PART_NUMBER + " but was "
                    + partNumber + " (upload " + uploadId + " of " + S3FenceException.location(bucket, key) + ")");
        }
        requireOpen("uploadPart");
        String eTag;
        try {
            eTag = s3.uploadPart(
                            partTemplate.toBuilder()
                                    .bucket(bucket)
                                    .key(key)
                                    .uploadId(uploadId)
                                    .partNumber(partNumber)
                                    .build(),
                            body)
                    .eTag();
        } catch (SdkException e) {
            throw S3Errors.translate(e, bucket, key, "UploadPart " + partNumber + " of upload " + uploadId, true);
        }
        partEtags.put(partNumber, eTag);
        return eTag;
    }

    /**
     * Completes the upload if no higher token is stored at the key, with a conditional
     * CompleteMultipartUpload (If-Match on the ETag the check was made against, If-None-Match: *
     * when there was no object). A lost race is re-read and decided again, as for a put.
     *
     * @return the accepted write
     * @throws S3StaleTokenException when a higher token is stored; the upload is aborted, nothing written
     * @throws FenceContentionException when every attempt lost a race (or the store discarded the
     *         upload after a 409 conflict); the upload is aborted, nothing written
     * @throws StoreException when the store refused or failed the request; the upload stays open
     * @throws IllegalStateException when no part was uploaded, or the upload was completed or aborted
     */
    public synchronized FencedWrite complete() {
        requireOpen("complete");
        if (partEtags.isEmpty()) {
            throw new IllegalStateException(
                    "no part was uploaded to upload " + uploadId + " of " + S3FenceException.location(bucket, key));
        }
        List<CompletedPart> parts = new ArrayList<>();
        for (Map.Entry<Integer, String> part : partEtags.entrySet()) {
            parts.add(CompletedPart.builder()
                    .partNumber(part.getKey())
                    .eTag(part.getValue())
                    .build());
        }
        CompleteMultipartUploadRequest base = CompleteMultipartUploadRequest.builder()
                .bucket(bucket)
                .key(key)
                .uploadId(uploadId)
                .multipartUpload(CompletedMultipartUpload.builder().parts(parts).build())
                .build();
        String predictedEtag = Etags.multipartEtag(new ArrayList<>(partEtags.values()));
        try {
            FencedWrite write = writer.run(key, token, "CompleteMultipartUpload", current -> {
                if (current.exists() && Etags.same(predictedEtag, current.eTag())) {
                    // Same bytes, same part sizes: the ETag will not change (see docs/fencing-s3.md).
                    log.warn(
                            "{}: completing upload {} reproduces the object's current ETag {}; a stale writer"
                                    + " holding that ETag could still match it",
                            S3FenceException.location(bucket, key),
                            uploadId,
                            current.eTag());
                }
                CompleteMultipartUploadRequest conditional = current.exists()
                        ? base.toBuilder().ifMatch(current.eTag()).build()
                        : base.toBuilder().ifNoneMatch("*").build();
                CompleteMultipartUploadResponse response;
                try {
                    response = s3.completeMultipartUpload(conditional);
                } catch (SdkException e) {
                    if (S3Errors.isConditionalConflict409(e)) {
                        // AWS discards the upload on this answer; retrying the completion cannot work.
                        throw new FenceContentionException(
                                bucket,
                                key,
                                "CompleteMultipartUpload",
                                token,
                                1,
                                "the store reported a concurrent conditional write (409 ConditionalRequestConflict)"
                                        + " and discards the upload on that answer; upload again",
                                e);
                    }
                    throw e;
                }
                cache.rememberWrite(key, response.eTag(), token);
                return new FencedWrite(bucket, key, token, response.eTag(), Optional.ofNullable(response.versionId()));
            });
            phase = Phase.COMPLETED;
            return write;
        } catch (S3StaleTokenException
                | FenceContentionException
                | ConditionalWritesUnsupportedException
                | InvalidStoredTokenException e) {
            abortAfter(e);
            throw e;
        }
    }

    /**
     * Aborts the upload, discarding its parts. Does nothing when already completed or aborted.
     *
     * <p>On a store whose AbortMultipartUpload also removes the object at the key (the self-check
     * learns this; S3Mock 5.2.0 does it), no request is sent: the object may by now be a newer
     * holder's, and a stale holder must never remove it. The upload is then only marked aborted
     * here and its parts stay in the store until a lifecycle rule for incomplete uploads removes them.
     *
     * @throws StoreException when the store refused or failed the abort
     */
    public synchronized void abort() {
        if (phase != Phase.OPEN) {
            return;
        }
        if (selfCheck.abortMayRemoveObjects()) {
            log.warn(
                    "left multipart upload {} of {} open: on this store an abort removes the object at the key,"
                            + " which may be a newer holder's",
                    uploadId,
                    S3FenceException.location(bucket, key));
            phase = Phase.ABORTED;
            return;
        }
        try {
            s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId));
        } catch (SdkException e) {
            if (!S3Errors.hasErrorCode(e, "NoSuchUpload")) {
                throw S3Errors.translate(e, bucket, key, "AbortMultipartUpload " + uploadId, true);
            }
        }
        phase = Phase.ABORTED;
    }

    /** Aborts the upload unless it completed; see {@link #abort()}. */
    @Override
    public void close() {
        abort();
    }

    private void abortAfter(FencingException cause) {
        try {
            abort();
        } catch (StoreException e) {
            cause.addSuppressed(e);
        }
    }

    private void requireOpen(String what) {
        if (phase != Phase.OPEN) {
            throw new IllegalStateException(
                    "cannot " + what + ": upload " + uploadId + " of " + S3FenceException.location(bucket, key)
                            + " is already " + phase.name().toLowerCase(Locale.ROOT));
        }
    }
}

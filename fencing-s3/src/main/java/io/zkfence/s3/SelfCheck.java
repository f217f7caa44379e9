package io.zkfence.s3;

import io.zkfence.fencing.internal.FenceObserver;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * Fail-closed check that the store enforces the preconditions fencing relies on. Before the first
 * fenced request of each kind, it writes a probe object under the configured prefix and sends
 * requests whose precondition must fail; if the store accepts one, it ignores conditions and every
 * fenced request of that kind is refused with {@link ConditionalWritesUnsupportedException}.
 * A pass or a fail is remembered; a probe that fails for another reason (access denied, network)
 * is not, so the next call probes again.
 */
final class SelfCheck {

    private static final Logger log = LoggerFactory.getLogger(SelfCheck.class);

    /** An ETag no probe object can have: the probe body's MD5 is something else. */
    private static final String WRONG_ETAG = "\"00000000000000000000000000000000\"";

    private static final String PROBE_BODY = "zkfence conditional-write self-check probe";

    enum Kind {
        PUT("conditional PutObject"),
        COMPLETE_MULTIPART("conditional CompleteMultipartUpload"),
        DELETE("conditional DeleteObject");

        private final String description;

        Kind(String description) {
            this.description = description;
        }
    }

    private record Failure(String probeKey, String finding) {}

    private enum Outcome {
        REFUSED,
        ACCEPTED
    }

    private final S3Client s3;
    private final String bucket;
    private final String prefix;
    private final Map<Kind, Failure> failures = new EnumMap<>(Kind.class);
    /**
     * Learned by the multipart probe: true when aborting an upload also removed the committed
     * object at its key (S3Mock 5.2.0 does). On such a store the adapter never sends an abort.
     */
    private volatile boolean abortMayRemoveObjects;
    /** Read without the lock: after the first pass, the steady-state write must not contend on it. */
    private final Set<Kind> passed = ConcurrentHashMap.newKeySet();

    private final FenceObserver observer;

    SelfCheck(S3Client s3, String bucket, String prefix) {
        this(s3, bucket, prefix, FenceObserver.NONE);
    }

    SelfCheck(S3Client s3, String bucket, String prefix, FenceObserver observer) {
        this.observer = observer;
        this.s3 = s3;
        this.bucket = bucket;
        this.prefix = prefix;
    }

    /**
     * Returns when the store is known to enforce {@code kind}; probes it first if not known yet.
     *
     * @param forKey the key the caller is about to write, named in any exception
     * @throws ConditionalWritesUnsupportedException when the store ignores the precondition
     * @throws StoreException when a probe request fails for another reason
     */
    void ensure(Kind kind, String forKey) {
        if (passed.contains(kind)) {
            return;
        }
        probeOnce(kind, forKey);
    }

    private synchronized void probeOnce(Kind kind, String forKey) {
        if (passed.contains(kind)) {
            return;
        }
        Failure failure = failures.get(kind);
        if (failure == null) {
            String probeKey = prefix + UUID.randomUUID();
            String finding = switch (kind) {
                case PUT -> probePut(probeKey, forKey);
                case COMPLETE_MULTIPART -> probeCompleteMultipart(probeKey, forKey);
                case DELETE -> probeDelete(probeKey, forKey);
            };
            if (finding == null) {
                passed.add(kind);
                log.info("bucket '{}' enforces {} (self-check passed)", bucket, kind.description);
                return;
            }
            failure = new Failure(probeKey, finding);
            failures.put(kind, failure);
            observer.selfCheckFailed(kind.name().toLowerCase(Locale.ROOT));
            log.error(
                    "bucket '{}' does not enforce {}: {}; fenced requests of this kind are refused",
                    bucket,
                    kind.description,
                    finding);
        }
        throw new ConditionalWritesUnsupportedException(bucket, forKey, failure.probeKey(), failure.finding());
    }

    private String probePut(String probeKey, String forKey) {
        boolean created = false;
        try {
            created = createProbe(probeKey, forKey);
            if (outcome(
                            probeKey,
                            forKey,
                            "PutObject If-None-Match: *",
                            () -> s3.putObject(
                                    r -> r.bucket(bucket).key(probeKey).ifNoneMatch("*"),
                                    RequestBody.fromString(PROBE_BODY)))
                    == Outcome.ACCEPTED) {
                return "a PutObject with If-None-Match: * over an existing object was accepted";
            }
            if (outcome(
                            probeKey,
                            forKey,
                            "PutObject If-Match",
                            () -> s3.putObject(
                                    r -> r.bucket(bucket).key(probeKey).ifMatch(WRONG_ETAG),
                                    RequestBody.fromString(PROBE_BODY)))
                    == Outcome.ACCEPTED) {
                return "a PutObject with If-Match on a wrong ETag was accepted";
            }
            String missingKey = probeKey + "-absent";
            if (outcome(
                            missingKey,
                            forKey,
                            "PutObject If-Match on a missing key",
                            () -> s3.putObject(
                                    r -> r.bucket(bucket).key(missingKey).ifMatch(WRONG_ETAG),
                                    RequestBody.fromString(PROBE_BODY)))
                    == Outcome.ACCEPTED) {
                removeProbe(missingKey, true);
                return "a PutObject with If-Match on a missing key was accepted (it created the object)";
            }
            return null;
        } finally {
            removeProbe(probeKey, created);
        }
    }

    private String probeDelete(String probeKey, String forKey) {
        boolean created = false;
        try {
            created = createProbe(probeKey, forKey);
            if (outcome(
                            probeKey,
                            forKey,
                            "DeleteObject If-Match",
                            () -> s3.deleteObject(
                                    r -> r.bucket(bucket).key(probeKey).ifMatch(WRONG_ETAG)))
                    == Outcome.ACCEPTED) {
                return "a DeleteObject with If-Match on a wrong ETag was accepted";
            }
            return null;
        } finally {
            removeProbe(probeKey, created);
        }
    }

    private String probeCompleteMultipart(String probeKey, String forKey) {
        String uploadId = null;
        boolean created = false;
        try {
            created = createProbe(probeKey, forKey);
            uploadId = call(
                            probeKey,
                            forKey,
                            "CreateMultipartUpload",
                            () -> s3.createMultipartUpload(r -> r.bucket(bucket).key(probeKey)))
                    .uploadId();
            String id = uploadId;
            String partEtag = call(
                            probeKey,
                            forKey,
                            "UploadPart",
                            () -> s3.uploadPart(
                                    r -> r.bucket(bucket)
                                            .key(probeKey)
                                            .uploadId(id)
                                            .partNumber(1),
                                    RequestBody.fromString(PROBE_BODY)))
                    .eTag();
            CompletedMultipartUpload parts = CompletedMultipartUpload.builder()
                    .parts(CompletedPart.builder().partNumber(1).eTag(partEtag).build())
                    .build();
            if (outcome(
                            probeKey,
                            forKey,
                            "CompleteMultipartUpload If-Match",
                            () -> s3.completeMultipartUpload(r -> r.bucket(bucket)
                                    .key(probeKey)
                                    .uploadId(id)
                                    .multipartUpload(parts)
                                    .ifMatch(WRONG_ETAG)))
                    == Outcome.ACCEPTED) {
                uploadId = null;
                return "a CompleteMultipartUpload with If-Match on a wrong ETag was accepted";
            }
            if (outcome(
                            probeKey,
                            forKey,
                            "CompleteMultipartUpload If-None-Match: *",
                            () -> s3.completeMultipartUpload(r -> r.bucket(bucket)
                                    .key(probeKey)
                                    .uploadId(id)
                                    .multipartUpload(parts)
                                    .ifNoneMatch("*")))
                    == Outcome.ACCEPTED) {
                uploadId = null;
                return "a CompleteMultipartUpload with If-None-Match: * over an existing object was accepted";
            }
            // Does an abort touch the committed object at the key? On AWS it does not; where it does,
            // the adapter's own aborts could delete a newer holder's object, so it sends none.
            call(
                    probeKey,
                    forKey,
                    "AbortMultipartUpload",
                    () -> s3.abortMultipartUpload(
                            r -> r.bucket(bucket).key(probeKey).uploadId(id)));
            uploadId = null;
            abortMayRemoveObjects = !probeExists(probeKey, forKey);
            if (abortMayRemoveObjects) {
                created = false;
                log.warn(
                        "bucket '{}': AbortMultipartUpload removed the committed probe object at its key; the fence"
                                + " never aborts uploads on this store (incomplete uploads stay until a lifecycle rule removes"
                                + " them)",
                        bucket);
            }
            return null;
        } finally {
            if (uploadId != null) {
                abortProbeUpload(probeKey, uploadId);
            }
            removeProbe(probeKey, created);
        }
    }

    /**
     * True when the store removes a committed object if an upload to its key is aborted. Known
     * once the multipart probe passed ({@link Kind#COMPLETE_MULTIPART}); every abort the adapter
     * might send comes after that probe.
     */
    boolean abortMayRemoveObjects() {
        return abortMayRemoveObjects;
    }

    private boolean probeExists(String probeKey, String forKey) {
        try {
            s3.headObject(r -> r.bucket(bucket).key(probeKey));
            return true;
        } catch (SdkException e) {
            if (S3Errors.hasStatus(e, 404)) {
                return false;
            }
            throw S3Errors.translate(e, bucket, forKey, operation("HeadObject", probeKey), false);
        }
    }

    private boolean createProbe(String probeKey, String forKey) {
        call(
                probeKey,
                forKey,
                "PutObject If-None-Match: * (create probe)",
                () -> s3.putObject(
                        r -> r.bucket(bucket).key(probeKey).ifNoneMatch("*"), RequestBody.fromString(PROBE_BODY)));
        return true;
    }

    /** Sends a request whose precondition must fail and says whether the store refused it. */
    private Outcome outcome(String probeKey, String forKey, String what, Supplier<?> request) {
        try {
            request.get();
            return Outcome.ACCEPTED;
        } catch (SdkException e) {
            if (S3Errors.isLostRace(e)) {
                return Outcome.REFUSED;
            }
            throw S3Errors.translate(e, bucket, forKey, operation(what, probeKey), true);
        }
    }

    private <T> T call(String probeKey, String forKey, String what, Supplier<T> request) {
        try {
            return request.get();
        } catch (SdkException e) {
            throw S3Errors.translate(e, bucket, forKey, operation(what, probeKey), true);
        }
    }

    private static String operation(String what, String probeKey) {
        return "conditional-write self-check " + what + " (probe key '" + probeKey
                + "') ahead of the first fenced request";
    }

    private void removeProbe(String probeKey, boolean created) {
        if (!created) {
            return;
        }
        try {
            s3.deleteObject(r -> r.bucket(bucket).key(probeKey));
        } catch (SdkException e) {
            // The verdict stands either way; a leftover probe object only costs storage.
            log.warn("could not delete self-check probe object s3://{}/{}; delete it by hand", bucket, probeKey, e);
        }
    }

    private void abortProbeUpload(String probeKey, String uploadId) {
        try {
            s3.abortMultipartUpload(r -> r.bucket(bucket).key(probeKey).uploadId(uploadId));
        } catch (SdkException e) {
            log.warn("could not abort self-check multipart upload {} of s3://{}/{}", uploadId, bucket, probeKey, e);
        }
    }
}

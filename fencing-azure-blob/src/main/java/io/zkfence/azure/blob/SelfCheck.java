package io.zkfence.azure.blob;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.DeleteSnapshotsOptionType;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.specialized.BlockBlobClient;
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

/**
 * Fail-closed check that the service enforces the preconditions the fence relies on, the same
 * check fencing-s3 makes of its store. Before the first fenced request of each kind it writes a
 * probe blob under the configured prefix and sends requests whose precondition must fail; if the
 * service accepts one, it ignores conditions (a proxy that drops the headers, an emulator) and
 * every fenced request of that kind is refused with {@link AzureBlobConditionsIgnoredException}.
 * A pass or a fail is remembered; a probe that fails for another reason is not, so the next call
 * probes again.
 */
final class SelfCheck {

    private static final Logger log = LoggerFactory.getLogger(SelfCheck.class);

    /** An ETag no probe blob has: Azure's are "0x" and hex digits of a time, never zero. */
    private static final String WRONG_ETAG = "\"0x0000000000000000\"";

    private static final BinaryData PROBE_BODY = BinaryData.fromString("zkfence conditional-write self-check probe");

    enum Kind {
        PUT("conditional Put Blob"),
        DELETE("conditional Delete Blob");

        private final String description;

        Kind(String description) {
            this.description = description;
        }
    }

    private record Failure(String probeBlob, String finding) {}

    private final BlobContainerClient container;
    private final String containerName;
    private final String prefix;
    private final FenceObserver observer;
    private final Map<Kind, Failure> failures = new EnumMap<>(Kind.class);
    /** Read without the lock: after the first pass, the steady-state write must not contend on it. */
    private final Set<Kind> passed = ConcurrentHashMap.newKeySet();

    SelfCheck(BlobContainerClient container, String prefix, FenceObserver observer) {
        this.container = container;
        this.containerName = container.getBlobContainerName();
        this.prefix = prefix;
        this.observer = observer;
    }

    /**
     * Returns when the service is known to enforce {@code kind}; probes it first if not known yet.
     *
     * @param forBlob the blob the caller is about to write, named in any exception
     * @throws AzureBlobConditionsIgnoredException when the service ignores the precondition
     * @throws AzureBlobFenceException when a probe request fails for another reason
     */
    void ensure(Kind kind, String forBlob) {
        if (passed.contains(kind)) {
            return;
        }
        probeOnce(kind, forBlob);
    }

    private synchronized void probeOnce(Kind kind, String forBlob) {
        if (passed.contains(kind)) {
            return;
        }
        Failure failure = failures.get(kind);
        if (failure == null) {
            String probe = prefix + UUID.randomUUID();
            String finding = kind == Kind.PUT ? probePut(probe, forBlob) : probeDelete(probe, forBlob);
            if (finding == null) {
                passed.add(kind);
                log.info("container '{}' enforces {} (self-check passed)", containerName, kind.description);
                return;
            }
            failure = new Failure(probe, finding);
            failures.put(kind, failure);
            observer.selfCheckFailed(kind.name().toLowerCase(Locale.ROOT));
            log.error(
                    "container '{}' does not enforce {}: {}; fenced requests of this kind are refused",
                    containerName,
                    kind.description,
                    finding);
        }
        throw new AzureBlobConditionsIgnoredException(containerName, forBlob, failure.probeBlob(), failure.finding());
    }

    private String probePut(String probe, String forBlob) {
        boolean created = false;
        try {
            create(probe, forBlob);
            created = true;
            if (accepted(
                    probe,
                    forBlob,
                    "Put Blob If-None-Match: *",
                    () -> put(probe, conditions().setIfNoneMatch("*")))) {
                return "a Put Blob with If-None-Match: * over an existing blob was accepted";
            }
            if (accepted(
                    probe,
                    forBlob,
                    "Put Blob If-Match",
                    () -> put(probe, conditions().setIfMatch(WRONG_ETAG)))) {
                return "a Put Blob with If-Match on a wrong ETag was accepted";
            }
            String missing = probe + "-absent";
            if (accepted(
                    missing,
                    forBlob,
                    "Put Blob If-Match on a missing blob",
                    () -> put(missing, conditions().setIfMatch(WRONG_ETAG)))) {
                remove(missing);
                return "a Put Blob with If-Match on a missing blob was accepted (it created the blob)";
            }
            return null;
        } finally {
            if (created) {
                remove(probe);
            }
        }
    }

    private String probeDelete(String probe, String forBlob) {
        boolean created = false;
        try {
            create(probe, forBlob);
            created = true;
            if (accepted(
                    probe,
                    forBlob,
                    "Delete Blob If-Match",
                    () -> container
                            .getBlobClient(probe)
                            .deleteWithResponse(
                                    DeleteSnapshotsOptionType.INCLUDE,
                                    conditions().setIfMatch(WRONG_ETAG),
                                    null,
                                    null))) {
                created = false;
                return "a Delete Blob with If-Match on a wrong ETag was accepted";
            }
            return null;
        } finally {
            if (created) {
                remove(probe);
            }
        }
    }

    private static BlobRequestConditions conditions() {
        return new BlobRequestConditions();
    }

    private Object put(String blob, BlobRequestConditions conditions) {
        BlockBlobClient client = container.getBlobClient(blob).getBlockBlobClient();
        return client.uploadWithResponse(
                new BlockBlobSimpleUploadOptions(PROBE_BODY).setRequestConditions(conditions), null, null);
    }

    private void create(String probe, String forBlob) {
        try {
            put(probe, conditions().setIfNoneMatch("*"));
        } catch (RuntimeException e) {
            throw AzureErrors.translate(
                    e, containerName, forBlob, operation("Put Blob If-None-Match: * (create probe)", probe), true);
        }
    }

    /** Sends a request whose precondition must fail and says whether the service accepted it. */
    private boolean accepted(String probe, String forBlob, String what, Supplier<?> request) {
        try {
            request.get();
            return true;
        } catch (RuntimeException e) {
            if (AzureErrors.isLostRace(e)) {
                return false;
            }
            throw AzureErrors.translate(e, containerName, forBlob, operation(what, probe), true);
        }
    }

    private static String operation(String what, String probe) {
        return "conditional-write self-check " + what + " (probe blob '" + probe
                + "') ahead of the first fenced request";
    }

    private void remove(String probe) {
        try {
            container.getBlobClient(probe).deleteIfExists();
        } catch (RuntimeException e) {
            // The verdict stands either way; a leftover probe blob only costs storage.
            log.warn("could not delete self-check probe blob {}; delete it by hand", probe, e);
        }
    }
}

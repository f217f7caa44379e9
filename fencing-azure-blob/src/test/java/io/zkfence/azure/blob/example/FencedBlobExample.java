package io.zkfence.azure.blob.example;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.models.BlobHttpHeaders;
import io.zkfence.azure.blob.AzureBlobFenceConfig;
import io.zkfence.azure.blob.AzureBlobStaleTokenException;
import io.zkfence.azure.blob.FencedBlob;
import io.zkfence.azure.blob.FencedContainer;
import java.time.Duration;
import java.util.Optional;

/**
 * The code that docs/fencing-azure-blob.md quotes, between "snippet:" and "end:" comments; a test
 * runs it against Azurite and another checks that the doc quotes it verbatim. Public API only.
 */
public final class FencedBlobExample {

    private FencedBlobExample() {}

    // snippet:open
    public static FencedContainer open(BlobServiceClient blobs, String containerName) {
        FencedContainer reports = FencedContainer.create(
                blobs.getBlobContainerClient(containerName),
                AzureBlobFenceConfig.builder()
                        .maxConflictRetries(8) // re-reads after a lost race, then give up
                        .backoffBase(Duration.ofMillis(5)) // jittered, doubling pause between them
                        .build());
        reports.verifyConditionalWrites(); // fail fast on a service (or proxy) that ignores If-Match
        return reports;
    }
    // end:open

    // snippet:publish
    /** Writes the daily report as the holder of {@code token}; false once a newer holder took over. */
    public static boolean publish(FencedContainer reports, long token, String json) {
        try {
            reports.put(
                    "daily/summary.json",
                    token,
                    BinaryData.fromString(json),
                    options -> options.setHeaders(new BlobHttpHeaders().setContentType("application/json")));
            return true;
        } catch (AzureBlobStaleTokenException e) {
            // A holder with a newer grant wrote after us: our lock is gone. Stop; do not retry.
            System.err.println(e.getMessage());
            return false;
        }
    }
    // end:publish

    // snippet:read
    public static String whoWrote(FencedContainer reports) {
        Optional<FencedBlob> summary = reports.read("daily/summary.json");
        return summary.map(b -> "written under token " + b.token().orElseThrow() + ": " + b.asUtf8String())
                .orElse("not written yet");
    }
    // end:read
}

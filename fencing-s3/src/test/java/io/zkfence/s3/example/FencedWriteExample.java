package io.zkfence.s3.example;

import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.FencedMultipartUpload;
import io.zkfence.s3.FencedObject;
import io.zkfence.s3.S3FenceConfig;
import io.zkfence.s3.S3StaleTokenException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The code that docs/fencing-s3.md quotes, between "snippet:" and "end:" comments; a test runs it
 * against S3Mock and another checks that the doc quotes it verbatim. Uses the public API only.
 */
public final class FencedWriteExample {

    private FencedWriteExample() {}

    // snippet:open
    public static FencedBucket open(S3Client s3, String bucketName) {
        FencedBucket reports = FencedBucket.create(
                s3,
                S3FenceConfig.builder(bucketName)
                        .maxConflictRetries(8) // re-reads after a lost race, then give up
                        .backoffBase(Duration.ofMillis(5)) // jittered, doubling pause between them
                        .backoffMax(Duration.ofMillis(500))
                        .build());
        reports.verifyConditionalWrites(); // fail fast on a store that ignores If-Match / If-None-Match
        return reports;
    }
    // end:open

    // snippet:publish
    /** Writes the daily report as the holder of {@code token}; false once a newer holder took over. */
    public static boolean publish(FencedBucket reports, long token, String json) {
        try {
            reports.put(
                    "daily/summary.json",
                    token,
                    RequestBody.fromString(json),
                    request -> request.contentType("application/json"));
            return true;
        } catch (S3StaleTokenException e) {
            // A holder with a newer grant wrote after us: our lock is gone. Stop; do not retry.
            System.err.println(e.getMessage());
            return false;
        }
    }
    // end:publish

    // snippet:multipart
    public static void export(FencedBucket reports, long token, List<Path> partFiles) {
        try (FencedMultipartUpload upload =
                reports.startMultipartUpload("exports/full.csv", token, request -> request.contentType("text/csv"))) {
            int partNumber = 1;
            for (Path part : partFiles) { // every part but the last: at least 5 MiB on AWS S3
                upload.uploadPart(partNumber++, RequestBody.fromFile(part));
            }
            upload.complete(); // conditional: S3StaleTokenException if a newer holder wrote
        } // close() aborts the upload unless it completed
    }
    // end:multipart

    // snippet:read
    public static String whoWrote(FencedBucket reports) {
        Optional<FencedObject> summary = reports.read("daily/summary.json");
        return summary.map(o -> "written under token " + o.token().orElseThrow() + ": " + o.asUtf8String())
                .orElse("not written yet");
    }
    // end:read
}

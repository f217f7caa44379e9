package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.s3.example.FencedWriteExample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the code the docs quote, against S3Mock. */
class FencedWriteExampleTest extends S3MockTestBase {

    @Test
    void documentedFlowPublishesRejectsTheStaleHolderAndReadsTheWriter() {
        FencedBucket reports = FencedWriteExample.open(fencedClient, bucketName);

        assertThat(FencedWriteExample.publish(reports, 5, "{\"total\":10}")).isTrue();
        assertThat(FencedWriteExample.publish(reports, 4, "{\"total\":-1}")).isFalse();

        assertThat(FencedWriteExample.whoWrote(reports)).isEqualTo("written under token 5: {\"total\":10}");
        assertThat(head("daily/summary.json").contentType()).isEqualTo("application/json");
    }

    @Test
    void documentedMultipartExportStoresThePartsInOrder(@TempDir Path dir) throws IOException {
        Path first = Files.writeString(dir.resolve("1.csv"), "a,b\n".repeat(1_400_000)); // 5.6 MB
        Path last = Files.writeString(dir.resolve("2.csv"), "c,d\n");
        FencedBucket reports = FencedWriteExample.open(fencedClient, bucketName);

        FencedWriteExample.export(reports, 7, List.of(first, last));

        assertThat(storedToken("exports/full.csv")).isEqualTo("7");
        assertThat(head("exports/full.csv").contentLength()).isEqualTo(Files.size(first) + Files.size(last));
        assertThrows(S3StaleTokenException.class, () -> FencedWriteExample.export(reports, 6, List.of(last)));
    }
}

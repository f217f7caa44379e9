package io.zkfence.samples.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.recipes.files.FilePass;
import io.zkfence.recipes.files.FileProcessor;
import io.zkfence.testing.EmbeddedServers;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

class DailyCsvImportTest extends RecipeSampleTestBase {

    @TempDir
    Path dir;

    @Test
    void twoPodsImportEveryFileOnceWithItsSum() {
        EmbeddedServers servers = closeLater(EmbeddedServers.start(false, false, true, dir));
        S3Client s3 = closeLater(S3Client.builder()
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .endpointOverride(servers.s3Endpoint())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
                .build());
        s3.createBucket(b -> b.bucket("imports"));
        for (int day = 1; day <= 10; day++) {
            String key = String.format("in/2026-01-%02d.csv", day);
            String csv = "sku,qty\nanvil," + day + "\nrope," + (10 * day) + "\n";
            s3.putObject(b -> b.bucket("imports").key(key), RequestBody.fromString(csv));
        }
        List<FileProcessor> pods = List.of(
                DailyCsvImport.importer(pod("import-1"), s3, "imports", db.dataSource),
                DailyCsvImport.importer(pod("import-2"), s3, "imports", db.dataSource));

        List<CompletableFuture<FilePass>> passes = new ArrayList<>();
        pods.forEach(p -> passes.add(CompletableFuture.supplyAsync(p::processPending)));
        int processed = passes.stream()
                .map(CompletableFuture::join)
                .mapToInt(p -> p.processed().size())
                .sum();

        assertThat(processed).isEqualTo(10);
        assertThat(db.rows("select count(*) from zkfence_file_done")).containsExactly("10");
        assertThat(s3.getObjectAsBytes(b -> b.bucket("imports").key("out/in/2026-01-03.csv"))
                        .asUtf8String())
                .isEqualTo("total,33\n");
        assertThat(pods.get(0).processPending().alreadyDone()).hasSize(10);
    }
}

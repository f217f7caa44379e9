package io.zkfence.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.fencing.StaleTokenException;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.S3FenceConfig;
import io.zkfence.s3.S3StaleTokenException;
import io.zkfence.samples.testing.SampleDatabase;
import io.zkfence.testing.EmbeddedServers;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The DAO: one unit of work writes to PostgreSQL and to S3, and handles a stale token from
 * either with one catch of the shared {@code io.zkfence.fencing.StaleTokenException}.
 */
class OneCatchForEveryStaleTokenTest {

    @Test
    void oneCatchOfTheSharedTypeHandlesAStaleTokenFromPostgresAndFromS3(@TempDir Path folder) {
        JdbcFence fence = JdbcFence.create(SampleDatabase.shared().pool());
        fence.createIfMissing();
        String key = "orders:" + UUID.randomUUID();
        try (EmbeddedServers servers = EmbeddedServers.start(false, false, true, folder);
                S3Client s3 = Clients.s3(
                        servers.s3Endpoint(),
                        "us-east-1",
                        true,
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("key", "secret")))) {
            s3.createBucket(b -> b.bucket("orders"));
            FencedBucket bucket =
                    FencedBucket.create(s3, S3FenceConfig.builder("orders").build());
            fence.claim(key, 20); // the newer holder wrote both
            bucket.put(key, 20, RequestBody.fromString("from holder 20"));

            List<StaleTokenException> caught = new ArrayList<>();
            List<Runnable> staleWrites = List.of(
                    () -> fence.claim(key, 19), () -> bucket.put(key, 19, RequestBody.fromString("from holder 19")));
            for (Runnable write : staleWrites) {
                try {
                    write.run();
                } catch (StaleTokenException e) { // the one catch, whichever store refused
                    caught.add(e);
                }
            }

            assertThat(caught).hasSize(2);
            assertThat(caught.get(0)).isInstanceOf(JdbcStaleTokenException.class);
            assertThat(caught.get(0).resource()).isEqualTo(key);
            assertThat(caught.get(1)).isInstanceOf(S3StaleTokenException.class);
            assertThat(caught.get(1).resource()).isEqualTo("s3://orders/" + key);
            assertThat(caught).allSatisfy(e -> {
                assertThat(e.presentedToken()).isEqualTo(19);
                assertThat(e.storedToken()).isEqualTo(20);
            });
            assertThat(fence.currentToken(key)).hasValue(20);
            assertThat(s3.getObjectAsBytes(b -> b.bucket("orders").key(key)).asUtf8String())
                    .isEqualTo("from holder 20");
        }
    }
}

package io.zkfence.recipes.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.recipes.testing.ZooKeeperTestBase;
import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.S3FenceConfig;
import io.zkfence.testing.Ensemble;
import io.zkfence.testing.PostgresServer;
import io.zkfence.testing.S3MockServer;
import io.zkfence.testkit.FreezableProxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

@ExtendWith(S3MockServer.class)
class FileProcessorTest extends ZooKeeperTestBase {

    private static final int FILES = 50;

    private S3Client s3;
    private DataSource db;
    private JdbcFence fence;
    private String bucket;
    private FencedBucket output;

    @BeforeEach
    void storesAndInputs() {
        db = PostgresServer.shared().freshDatabase().dataSource();
        fence = JdbcFence.create(db);
        fence.createIfMissing();
        s3 = closeLater(S3Client.builder()
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .endpointOverride(S3MockServer.endpoint())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("t", "t")))
                .build());
        bucket = "files-" + UUID.randomUUID().toString().substring(0, 8);
        s3.createBucket(b -> b.bucket(bucket));
        for (int i = 0; i < FILES; i++) {
            String key = String.format("in/2026-01-05-%02d.csv", i);
            s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("rows of file " + i));
        }
        output = FencedBucket.create(s3, S3FenceConfig.of(bucket));
    }

    private FileProcessor worker(LockClient client, FileTask task) {
        FileProcessor p = FileProcessor.builder(client, s3, output, fence, db, task)
                .input(bucket, "in/")
                .outputPrefix("out/")
                .build();
        p.createCompletionTableIfMissing();
        return p;
    }

    private static byte[] upper(String key, byte[] input, long token) {
        return new String(input, StandardCharsets.UTF_8).toUpperCase().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void threeWorkersProcessEveryFileExactlyOnceThroughAPausedAndAKilledWorker() throws Exception {
        // The paused worker reaches ZooKeeper through a proxy: freezing it is a pause or partition
        // past its 4 s session. Its first file blocks until the test lets it go on.
        FreezableProxy proxy = proxy();
        LockClient pausedClient = clientThrough(proxy, "paused", SHORT_SESSION, Duration.ofSeconds(5));
        CountDownLatch pausedIn = new CountDownLatch(1);
        CountDownLatch pausedGo = new CountDownLatch(1);
        Set<String> pausedFiles = new HashSet<>();
        FileProcessor paused = worker(pausedClient, (key, input, token) -> {
            if (pausedFiles.isEmpty()) {
                pausedFiles.add(key);
                pausedIn.countDown();
                await(pausedGo);
            }
            return upper(key, input, token);
        });
        // The killed worker's Curator client is closed mid-file: its session and queue node go.
        CuratorFramework killedCurator = closeLater(Ensemble.curator(ensemble.connectString(), Duration.ofSeconds(10)));
        LockClient killedClient = closeLater(LockClient.create(
                killedCurator,
                LockClientConfig.builder().rootPath(root).ownerId("killed").build()));
        CountDownLatch killedIn = new CountDownLatch(1);
        CountDownLatch killedGo = new CountDownLatch(1);
        Set<String> killedFiles = new HashSet<>();
        FileProcessor killed = worker(killedClient, (key, input, token) -> {
            killedFiles.add(key);
            killedIn.countDown();
            await(killedGo);
            return upper(key, input, token);
        });
        FileProcessor healthy = worker(client("healthy"), FileProcessorTest::upper);

        CompletableFuture<FilePass> pausedPass = async(paused::processPending);
        await(pausedIn);
        CompletableFuture<FilePass> killedPass = async(killed::processPending);
        await(killedIn);
        proxy.freeze();
        killedCurator.close();

        // The healthy worker takes over both files once their claims are gone, and everything else.
        Set<String> doneByHealthy = new HashSet<>();
        eventually().until(() -> {
            doneByHealthy.addAll(healthy.processPending().processed());
            return doneByHealthy.containsAll(pausedFiles) && doneByHealthy.containsAll(killedFiles);
        });
        proxy.thaw();
        pausedGo.countDown();
        killedGo.countDown();

        FilePass late = pausedPass.get(120, TimeUnit.SECONDS);
        assertThat(late.lostToNewer())
                .as("the paused worker's late result was rejected")
                .containsAll(pausedFiles);
        // The killed worker's thread runs on after its session died (as a process killed between its
        // last check and its write would have): its output and completion are rejected.
        assertThat(killedPass.get(120, TimeUnit.SECONDS).lostToNewer()).containsAll(killedFiles);
        eventually().until(() -> healthy.processPending().alreadyDone().size() == FILES);

        Map<String, Long> completions = completions();
        assertThat(completions).hasSize(FILES);
        for (Map.Entry<String, Long> done : completions.entrySet()) {
            String outputKey = "out/" + done.getKey();
            assertThat(output.token(outputKey)).as(outputKey).hasValue(done.getValue());
            String input = s3.getObjectAsBytes(b -> b.bucket(bucket).key(done.getKey()))
                    .asUtf8String();
            assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key(outputKey)).asUtf8String())
                    .isEqualTo(input.toUpperCase());
        }
        assertThat(s3.listObjectsV2(b -> b.bucket(bucket).prefix("out/")).keyCount())
                .isEqualTo(FILES);
    }

    @Test
    void aFileAnotherWorkerHoldsIsSkippedNotWaitedFor() throws Exception {
        CountDownLatch in = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        Set<String> slow = new HashSet<>();
        FileProcessor slowWorker = worker(client("slow"), (key, input, token) -> {
            if (slow.isEmpty()) {
                slow.add(key);
                in.countDown();
                await(go);
            }
            return upper(key, input, token);
        });
        FileProcessor fast = worker(client("fast"), FileProcessorTest::upper);
        CompletableFuture<FilePass> slowPass = async(slowWorker::processPending);
        await(in);
        FilePass pass = fast.processPending();
        assertThat(pass.claimedElsewhere()).containsExactlyElementsOf(slow);
        assertThat(pass.processed()).hasSize(FILES - 1);
        go.countDown();
        assertThat(slowPass.get(60, TimeUnit.SECONDS).processed()).containsExactlyElementsOf(slow);
    }

    @Test
    void aTaskThatThrowsLeavesTheFileForTheNextPass() {
        Set<String> failedOnce = new HashSet<>();
        FileProcessor flaky = worker(client("flaky"), (key, input, token) -> {
            if (failedOnce.add(key)) {
                throw new IllegalStateException("parser crashed on " + key);
            }
            return upper(key, input, token);
        });
        assertThat(flaky.processPending().failed()).hasSize(FILES);
        assertThat(flaky.processPending().processed()).hasSize(FILES);
    }

    @Test
    void settingsThatWouldMixOutputsWithInputsAreRefused() {
        LockClient c = client("bad");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> FileProcessor.builder(c, s3, output, fence, db, FileProcessorTest::upper)
                                .input(bucket, "in/")
                                .outputPrefix("in/out/")
                                .build()))
                .hasMessageContaining("outputPrefix");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> FileProcessor.builder(c, s3, output, fence, db, FileProcessorTest::upper)
                                .input(bucket, "in/")
                                .outputPrefix("out/")
                                .completionTable("drop table x")
                                .build()))
                .hasMessageContaining("completionTable");
    }

    private Map<String, Long> completions() throws Exception {
        Map<String, Long> rows = new HashMap<>();
        try (Connection c = db.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("select file_key, token from zkfence_file_done")) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getLong(2));
            }
        }
        return rows;
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released in time");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

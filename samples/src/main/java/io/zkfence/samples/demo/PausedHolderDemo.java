package io.zkfence.samples.demo;

import com.zaxxer.hikari.HikariDataSource;
import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.S3FenceConfig;
import io.zkfence.testing.AzuriteServer;
import io.zkfence.testing.EmbeddedServers;
import io.zkfence.testing.RedisServer;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Runs the demo once: servers (embedded or given), the stores reset, the {@link Story}, then the
 * stores' final state and the {@link Verdict}. Everything started is stopped at the end, or by
 * the shutdown hook if the demo is interrupted.
 */
final class PausedHolderDemo {

    private final DemoOptions options;
    private final PrintStream out;

    PausedHolderDemo(DemoOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    int run() {
        Timeline timeline = new Timeline(out, Instant.now());
        LoggerFactory.getILoggerFactory(); // set logging up now, before several threads log at once
        try (Cleanup cleanup = new Cleanup()) {
            timeline.text("zkfence paused-holder demo: pod-A and pod-B compete for " + Inventory.LOCK
                    + "; pod-A is frozen past its session timeout and then writes with its old token.");
            timeline.text("");
            timeline.header();
            // Registered first, so deleted last: after the pods and servers that write into it have stopped.
            Path workDir = createWorkDir(options.workParent());
            cleanup.add(() -> deleteTree(workDir));
            EmbeddedServers servers = null;
            if (options.embeddedZookeeper() || options.embeddedPostgres() || options.embeddedS3()) {
                timeline.add(Instant.now(), "demo", "starting in this process: " + embeddedList());
                servers = cleanup.add(EmbeddedServers.start(
                        options.embeddedZookeeper(), options.embeddedPostgres(), options.embeddedS3(), workDir));
            }
            ExtraStores extra = extraStores(cleanup);
            Endpoints endpoints = endpoints(servers, extra);
            describe(timeline, endpoints, workDir);

            LockClient observer = cleanup.add(LockClient.connect(
                    endpoints.zookeeper(),
                    LockClientConfig.builder()
                            .rootPath(endpoints.zkRoot())
                            .ownerId("demo-observer")
                            .build()));
            HikariDataSource pool = cleanup.add(
                    Clients.pool("demo", endpoints.jdbcUrl(), endpoints.jdbcUser(), endpoints.jdbcPassword()));
            S3Client s3 = cleanup.add(Clients.s3(
                    endpoints.s3Endpoint(),
                    endpoints.region(),
                    endpoints.pathStyle(),
                    StaticCredentialsProvider.create(endpoints.s3Credentials())));
            JdbcFence fence = JdbcFence.create(
                    pool,
                    FenceConfig.builder(FenceDialect.POSTGRES)
                            .table(Inventory.FENCE_TABLE)
                            .build());
            FencedBucket bucket = FencedBucket.create(s3, S3FenceConfig.of(endpoints.bucket()));
            DemoStores.reset(pool, fence, s3, endpoints.bucket(), options.embeddedS3());
            ExtraStores.Open extraStores = cleanup.add(extra.open());
            extraStores.reset(options.embeddedAzureBlob());
            timeline.add(
                    Instant.now(),
                    "demo",
                    "stores reset: stock of SKU " + Inventory.SKU + " = " + Inventory.INITIAL_STOCK
                            + " in both copies, no S3 objects, empty fence table");
            Story story = new Story(endpoints, timeline, observer, workDir, options.maxFreeze(), cleanup::add);
            List<String> stores = new ArrayList<>(List.of("postgres", "s3"));
            stores.addAll(extra.stores());
            story.record().stores = List.copyOf(stores);
            try {
                story.play();
            } catch (StoryFailedException e) {
                story.record().failure = e.getMessage(); // told on the timeline already
            }
            Optional<FinalState> state = Optional.empty();
            try {
                state = Optional.of(FinalState.read(pool, fence, bucket, extraStores));
                state.get().print(timeline);
            } catch (RuntimeException e) {
                timeline.text("cannot read what the stores hold: " + e);
            }
            Verdict verdict = Verdict.of(story.record(), state);
            timeline.text("(" + Story.seconds(Duration.between(timeline.start(), Instant.now())) + " in all)");
            verdict.print(timeline); // its RESULT line is the last thing the demo prints
            return verdict.exitCode();
        } catch (RuntimeException e) {
            timeline.text("");
            timeline.text("The demo could not run: " + e.getMessage());
            e.printStackTrace();
            return Verdict.STORY_NOT_AS_TOLD;
        }
    }

    /** Redis and Azure Blob Storage when asked for: started here (embedded) or named on the command line. */
    private ExtraStores extraStores(Cleanup cleanup) {
        String redisUri = options.redisUri();
        if (options.embeddedRedis()) {
            redisUri = cleanup.add(RedisServer.start(List.of())).uri();
        }
        String connection = System.getenv(ExtraStores.ENV_AZURE_CONNECTION_STRING);
        String container = options.azureContainer();
        if (options.embeddedAzureBlob()) {
            connection = cleanup.add(AzuriteServer.start()).connectionString();
            container = DemoOptions.EMBEDDED_CONTAINER;
        }
        return new ExtraStores(redisUri, container == null ? null : connection, container);
    }

    private Endpoints endpoints(EmbeddedServers servers, ExtraStores extra) {
        AwsCredentials credentials = options.embeddedS3()
                ? AwsBasicCredentials.create("demo", "demo")
                : DefaultCredentialsProvider.builder().build().resolveCredentials();
        return new Endpoints(
                options.embeddedZookeeper() ? servers.zookeeperConnectString() : options.zookeeper(),
                options.zkRoot(),
                options.sessionTimeout(),
                options.embeddedPostgres() ? servers.jdbcUrl() : options.jdbcUrl(),
                options.embeddedPostgres() ? "postgres" : options.jdbcUser(),
                options.embeddedPostgres() ? null : options.jdbcPassword(),
                options.embeddedS3() ? servers.s3Endpoint() : options.s3Endpoint(),
                options.embeddedS3() ? DemoOptions.EMBEDDED_BUCKET : options.s3Bucket(),
                options.s3Region(),
                options.embeddedS3() || options.s3PathStyle(),
                credentials,
                extra);
    }

    private String embeddedList() {
        List<String> names = new ArrayList<>();
        if (options.embeddedZookeeper()) {
            names.add("a 3-server ZooKeeper ensemble");
        }
        if (options.embeddedPostgres()) {
            names.add("PostgreSQL");
        }
        if (options.embeddedS3()) {
            names.add("S3Mock");
        }
        return String.join(", ", names);
    }

    private void describe(Timeline t, Endpoints e, Path workDir) {
        t.add(
                Instant.now(),
                "demo",
                "ZooKeeper   " + (options.embeddedZookeeper() ? "(embedded) " : "") + e.zookeeper() + ", lock root "
                        + e.zkRoot() + ", pods ask for a " + Story.seconds(e.sessionTimeout()) + " session");
        t.detail("PostgreSQL  " + (options.embeddedPostgres() ? "(embedded) " : "")
                + e.jdbcUrl().replaceAll("password=[^&]*", "password=***"));
        t.detail("S3          " + (options.embeddedS3() ? "(embedded S3Mock) " : "")
                + (e.s3Endpoint() == null ? "AWS S3 (" + e.region() + ")" : e.s3Endpoint()) + ", bucket " + e.bucket());
        if (e.extra().redisUri() != null) {
            t.detail("Redis       " + (options.embeddedRedis() ? "(embedded redis-server) " : "")
                    + e.extra().redisUri() + ", fence key " + ExtraStores.REDIS_FENCE);
        }
        if (e.extra().azureContainer() != null) {
            t.detail("Azure Blob  " + (options.embeddedAzureBlob() ? "(embedded Azurite) " : "") + "container "
                    + e.extra().azureContainer());
        }
        t.detail("work folder " + workDir + " (pods' logs" + (options.embeddedS3() ? ", S3Mock's objects" : "")
                + "), deleted at the end");
    }

    private static Path createWorkDir(Path parent) {
        try {
            return Files.createTempDirectory(parent, "zkfence-demo");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the demo's temporary folder in " + parent, e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}

package io.zkfence.campaigns;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zkfence.fencing.StaleTokenException;
import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.AcquireTimeoutException;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.FencedObject;
import io.zkfence.s3.S3FenceConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.ZooKeeper;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One worker JVM of the fault campaign: a {@link LockClient} and a few threads that take a
 * handful of locks and, while holding, do read-modify-write work through fencing-jdbc on
 * PostgreSQL (a counter and a history row in one fenced unit of work) and through fencing-s3 (a
 * JSON document with a counter and the writer's token), logging every attempt as a JSON line. It
 * runs until it is killed; the campaign pauses, partitions and kills it.
 *
 * <p>Arguments: {@code id zookeeper jdbcUrl s3Endpoint bucket locks threads sessionTimeoutMs logFile
 * sessionFile [cohort]}. The worker publishes each new ZooKeeper session in {@code sessionFile}, so
 * that the campaign can have the server expire it ({@link SessionExpiry}). With {@code cohort} its
 * threads take the locks in cohort mode ({@link io.zkfence.lock.FencedLock#withCohort()}): one
 * cohort per lock in this process, its threads taking turns under one queue node, and half of their
 * acquires aim at one hot lock, {@code res-0}, so that turns are handed from thread to thread.
 */
public final class FaultWorker {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String id;
    private final LockClient client;
    private final JdbcFence fence;
    private final FencedBucket bucket;
    private final int locks;
    private final boolean cohort;
    private final PrintWriter log;
    private final AtomicLong attempts = new AtomicLong();
    /**
     * This JVM's part of every attempt id: a worker is killed and started again many times in a
     * campaign, and its counter starts again at 1 each time, so the id alone would repeat.
     */
    private final String incarnation =
            ProcessHandle.current().pid() + "." + Long.toString(System.currentTimeMillis(), 36);

    private FaultWorker(
            String id,
            LockClient client,
            JdbcFence fence,
            FencedBucket bucket,
            int locks,
            boolean cohort,
            PrintWriter log) {
        this.id = id;
        this.client = client;
        this.fence = fence;
        this.bucket = bucket;
        this.locks = locks;
        this.cohort = cohort;
        this.log = log;
    }

    /** Runs a worker until the process is killed. */
    public static void main(String[] args) throws IOException {
        String id = args[0];
        int locks = Integer.parseInt(args[5]);
        int threads = Integer.parseInt(args[6]);
        Duration session = Duration.ofMillis(Long.parseLong(args[7]));
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(args[2]);
        pool.setUsername("postgres");
        pool.setMaximumPoolSize(threads + 1);
        pool.setConnectionTimeout(30_000);
        HikariDataSource ds = new HikariDataSource(pool);
        S3Client s3 = S3Client.builder()
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .endpointOverride(URI.create(args[3]))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("faults", "faults")))
                .build();
        LockClient client = LockClient.create(
                connect(args[1], session, Path.of(args[9])),
                LockClientConfig.builder()
                        .rootPath("/faults/locks")
                        .ownerId(id)
                        .sessionTimeout(session)
                        .connectionTimeout(Duration.ofSeconds(30))
                        .build());
        PrintWriter log = new PrintWriter(
                Files.newBufferedWriter(
                        Path.of(args[8]), StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND),
                true);
        FaultWorker worker = new FaultWorker(
                id,
                client,
                JdbcFence.create(ds, FenceConfig.defaults(FenceDialect.POSTGRES)),
                FencedBucket.create(s3, S3FenceConfig.of(args[4])),
                locks,
                args.length > 10 && args[10].equals("cohort"),
                log);
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            running.add(Thread.ofPlatform().name(id + "-t" + t).start(worker::loop));
        }
        System.out.println("ready " + id);
        System.out.flush();
        for (Thread t : running) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * The worker's own ZooKeeper connection (as {@link LockClient#connect} would make it), which
     * publishes every session it gets: the first, and each new one after an expiry.
     */
    private static CuratorFramework connect(String connectString, Duration session, Path sessionFile) {
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs((int) session.toMillis())
                .connectionTimeoutMs(30_000)
                .retryPolicy(LockClient.defaultRetryPolicy())
                // Keep to the proxies: the ensemble tracker would replace them with the servers' own
                // addresses from /zookeeper/config, and after the next reconnect a "partition" would
                // no longer cut this worker off.
                .ensembleTracker(false)
                .build();
        curator.getConnectionStateListenable().addListener((c, state) -> {
            if (state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED) {
                try {
                    ZooKeeper zk = c.getZookeeperClient().getZooKeeper();
                    SessionExpiry.publish(
                            sessionFile, new SessionExpiry.Session(zk.getSessionId(), zk.getSessionPasswd()));
                } catch (Exception e) {
                    // Not fatal for the worker: the campaign then finds no session to expire and skips that fault.
                    System.err.println("cannot publish the session: " + e);
                }
            }
        });
        curator.start();
        try {
            if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no ZooKeeper connection within 30 s at " + connectString);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting", e);
        }
        return curator;
    }

    private void loop() {
        while (!Thread.currentThread().isInterrupted()) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            String resource = "res-" + (cohort && random.nextBoolean() ? 0 : random.nextInt(locks));
            FencedLock lock = cohort ? client.lock(resource).withCohort() : client.lock(resource);
            try (Lease lease = lock.acquire(Duration.ofSeconds(3))) {
                long acquiredAt = System.currentTimeMillis();
                String state = lease.state().name();
                String attempt = id + "-" + incarnation + "-" + attempts.incrementAndGet();
                String jdbc = writeRow(resource, lease.token(), attempt);
                String s3 = writeDocument(resource, lease.token());
                record(new Attempt(
                        attempt,
                        id,
                        resource,
                        lease.token(),
                        state,
                        jdbc,
                        s3,
                        acquiredAt,
                        System.currentTimeMillis(),
                        lease.state().name(),
                        Thread.currentThread().getName()));
            } catch (AcquireTimeoutException busy) {
                // the lock was busy (or ZooKeeper unreachable) for 3 s: try another one
            } catch (RuntimeException e) {
                // ZooKeeper unreachable and the like: the campaign injects exactly that; keep going
                long now = System.currentTimeMillis();
                record(new Attempt(
                        id + "-" + incarnation + "-x" + attempts.incrementAndGet(),
                        id,
                        resource,
                        0,
                        "none",
                        "error: " + e,
                        "error: not tried",
                        now,
                        now,
                        "none",
                        Thread.currentThread().getName()));
            }
            FaultCampaign.sleep(Duration.ofMillis(ThreadLocalRandom.current().nextInt(5))); // think time
        }
    }

    /** A counter and a history row in one fenced unit of work. */
    private String writeRow(String resource, long token, String attempt) {
        return ResourceTables.write(fence, resource, token, attempt);
    }

    /** Read, increment, write back the resource's JSON document, fenced with the token. */
    private String writeDocument(String resource, long token) {
        String key = "docs/" + resource + ".json";
        try {
            Optional<FencedObject> current = bucket.read(key);
            long counter = 0;
            if (current.isPresent()) {
                @SuppressWarnings("unchecked")
                Map<String, Object> doc = JSON.readValue(current.get().asByteArray(), Map.class);
                counter = ((Number) doc.get("counter")).longValue();
            }
            byte[] next = JSON.writeValueAsBytes(Map.of("counter", counter + 1, "token", token, "writer", id));
            bucket.put(key, token, RequestBody.fromBytes(next));
            return Attempt.ACCEPTED;
        } catch (StaleTokenException e) {
            return Attempt.STALE;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            return "error: " + e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private synchronized void record(Attempt a) {
        try {
            log.println(JSON.writeValueAsString(a));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

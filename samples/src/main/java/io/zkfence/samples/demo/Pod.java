package io.zkfence.samples.demo;

import static io.zkfence.samples.demo.Inventory.Copy.FENCED;
import static io.zkfence.samples.demo.Inventory.Copy.UNFENCED;

import com.zaxxer.hikari.HikariDataSource;
import io.zkfence.fencing.StaleTokenException;
import io.zkfence.jdbc.FenceConfig;
import io.zkfence.jdbc.FenceDialect;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.S3FenceConfig;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One pod of the paused-holder demo: a JVM of its own that competes for the lock
 * {@code inventory:sku:123} and writes the inventory to PostgreSQL and S3, each write once
 * fenced and once unfenced. The demo drives it with one command per line on standard input and
 * reads what happened from standard output ({@link PodEvent}); everything else (logs) goes to
 * standard error.
 *
 * <p>Commands: {@code acquire}, {@code claim}, {@code order <id> <quantity> [pause]},
 * {@code release}, {@code exit}. With {@code pause} the pod reads the stock, computes the new
 * value, checks its lease, reports {@code pause-point} and waits for {@code go} before writing:
 * that is where the demo freezes it, between the check and the write, which is where a GC pause
 * can hit any real holder.
 */
@Command(name = "zkfence-demo-pod", description = "One pod of the paused-holder demo (the demo starts it).")
public final class Pod implements Callable<Integer> {

    @Option(names = "--name", required = true)
    private String name;

    @Option(names = "--zookeeper", required = true)
    private String zookeeper;

    @Option(names = "--zk-root", required = true)
    private String zkRoot;

    @Option(names = "--session-timeout-ms", required = true)
    private long sessionTimeoutMs;

    @Option(names = "--jdbc-url", required = true)
    private String jdbcUrl;

    @Option(names = "--jdbc-user")
    private String jdbcUser;

    @Option(names = "--s3-endpoint")
    private URI s3Endpoint;

    @Option(names = "--s3-bucket", required = true)
    private String bucketName;

    @Option(names = "--s3-region", required = true)
    private String region;

    @Option(names = "--s3-path-style")
    private boolean pathStyle;

    @Option(names = "--redis-uri")
    private String redisUri;

    @Option(names = "--azure-blob-container")
    private String azureContainer;

    private final PrintStream events;
    private LockClient locks;
    private HikariDataSource pool;
    private JdbcFence fence;
    private S3Client s3;
    private FencedBucket bucket;
    private ExtraStores extra;
    private ExtraStores.Open extraStores;
    private Lease lease;

    private Pod(PrintStream events) {
        this.events = events;
    }

    public static void main(String[] args) {
        // Standard output is the channel to the demo; anything else that prints goes to stderr.
        PrintStream events = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        System.exit(new CommandLine(new Pod(events)).execute(args));
    }

    @Override
    public Integer call() {
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            open();
            emit("ready", "pid", ProcessHandle.current().pid());
            String line;
            while ((line = commands.readLine()) != null) { // end of input: the demo is gone
                String[] cmd = line.strip().split(" ");
                try {
                    switch (cmd[0]) {
                        case "acquire" -> acquire();
                        case "claim" -> claim();
                        case "order" -> order(cmd[1], Integer.parseInt(cmd[2]), cmd.length > 3, commands);
                        case "release" -> release();
                        case "exit" -> {
                            emit("bye");
                            return 0;
                        }
                        default -> emit("error", "message", "unknown command: " + line);
                    }
                } catch (RuntimeException | SQLException e) {
                    e.printStackTrace();
                    emit("error", "message", e.toString());
                }
            }
            return 0;
        } catch (IOException e) {
            // Standard input broke: the demo is gone, nobody is left to tell.
            e.printStackTrace();
            return 1;
        } catch (RuntimeException e) {
            e.printStackTrace();
            emit("error", "message", "pod " + name + " could not start: " + e);
            return 1;
        } finally {
            close();
        }
    }

    private void open() {
        locks = LockClient.connect(
                zookeeper,
                LockClientConfig.builder()
                        .rootPath(zkRoot)
                        .ownerId(name)
                        .sessionTimeout(Duration.ofMillis(sessionTimeoutMs))
                        .build());
        pool = Clients.pool(name, jdbcUrl, jdbcUser, System.getenv(Endpoints.ENV_JDBC_PASSWORD));
        fence = JdbcFence.create(
                pool,
                FenceConfig.builder(FenceDialect.POSTGRES)
                        .table(Inventory.FENCE_TABLE)
                        .holderLabel(name)
                        .build());
        s3 = Clients.s3(
                s3Endpoint,
                region,
                pathStyle,
                DefaultCredentialsProvider.builder().build());
        bucket = FencedBucket.create(s3, S3FenceConfig.of(bucketName));
        bucket.verifyConditionalWrites(); // fail now, not in the middle of the story, on a store that ignores If-Match
        extra = new ExtraStores(redisUri, System.getenv(ExtraStores.ENV_AZURE_CONNECTION_STRING), azureContainer);
        extraStores = extra.open();
    }

    private void acquire() {
        FencedLock lock = locks.lock(Inventory.LOCK);
        emit("asking", "lock", lock.name());
        lease = lock.acquire(Duration.ofMinutes(2));
        lease.addListener((l, from, to) ->
                emit("lease", "from", from, "to", to, "reason", l.endReason().orElse("")));
        emit(
                "acquired",
                "lock",
                lease.lockName(),
                "token",
                lease.token(),
                "ttl",
                lease.ttl().toMillis());
    }

    /** Advances the fence to our token right away: any former holder is cut off before we write. */
    private void claim() {
        fence.claim(Inventory.LOCK, lease.token());
        emit("claimed", "token", lease.token());
    }

    private void order(String orderId, int quantity, boolean pause, BufferedReader commands)
            throws SQLException, IOException {
        long token = lease.token();
        int available;
        try (Connection c = pool.getConnection()) {
            available = Inventory.stock(c, FENCED).quantity();
        }
        int newStock = available - quantity;
        lease.checkValid(); // the last look at the lease before writing, as careful code does
        emit(
                "checked",
                "order",
                orderId,
                "quantity",
                quantity,
                "read",
                available,
                "write",
                newStock,
                "token",
                token,
                "state",
                lease.state());
        if (pause) {
            emit("pause-point", "order", orderId);
            String go = commands.readLine(); // the demo stops this JVM here (SIGSTOP), then sends "go"
            if (go == null) {
                return;
            }
        }
        // From here on no second look at the lease: a thread paused after its check would not take one.
        emit("writing", "order", orderId, "token", token, "lease", lease.state());
        StockDocument doc = new StockDocument(newStock, orderId, name, token);
        write(
                FENCED,
                "postgres",
                token,
                () -> fence.inTransaction(Inventory.LOCK, token, c -> {
                    Inventory.reserve(c, FENCED, orderId, quantity, newStock, name, token);
                    return null;
                }));
        write(
                FENCED,
                "s3",
                token,
                () -> bucket.put(
                        FENCED.objectKey,
                        token,
                        RequestBody.fromString(doc.toJson()),
                        r -> r.contentType("application/json")));
        for (String store : extra.stores()) {
            write(FENCED, store, token, () -> extraStores.write(store, FENCED, token, doc));
        }
        write(UNFENCED, "postgres", token, () -> {
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                Inventory.reserve(c, UNFENCED, orderId, quantity, newStock, name, token);
                c.commit();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        write(
                UNFENCED,
                "s3",
                token,
                () -> s3.putObject(
                        r -> r.bucket(bucketName).key(UNFENCED.objectKey).contentType("application/json"),
                        RequestBody.fromString(doc.toJson())));
        for (String store : extra.stores()) {
            write(UNFENCED, store, token, () -> extraStores.write(store, UNFENCED, token, doc));
        }
        emit("order-done", "order", orderId);
    }

    private void write(Inventory.Copy copy, String store, long token, Runnable write) {
        try {
            write.run();
            emit("write", "copy", copy.label(), "store", store, "token", token, "outcome", "accepted");
        } catch (StaleTokenException e) { // either store: the one shared type
            emit(
                    "write",
                    "copy",
                    copy.label(),
                    "store",
                    store,
                    "token",
                    token,
                    "outcome",
                    "rejected",
                    "stored",
                    e.storedToken(),
                    "exception",
                    e.getClass().getName(),
                    "message",
                    e.getMessage());
        } catch (RuntimeException e) {
            e.printStackTrace();
            emit(
                    "write",
                    "copy",
                    copy.label(),
                    "store",
                    store,
                    "token",
                    token,
                    "outcome",
                    "failed",
                    "message",
                    e.toString());
        }
    }

    private void release() {
        lease.release();
        emit("released", "token", lease.token());
    }

    private void emit(String kind, Object... keyValues) {
        synchronized (events) { // stamp and print under one lock, so lines come out in time order
            events.println(PodEvent.encode(Instant.now(), kind, keyValues));
        }
    }

    private void close() {
        if (locks != null) {
            locks.close();
        }
        if (pool != null) {
            pool.close();
        }
        if (s3 != null) {
            s3.close();
        }
        if (extraStores != null) {
            extraStores.close();
        }
    }
}

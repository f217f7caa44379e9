package io.zkfence.campaigns;

import io.zkfence.testing.EmbeddedServers;
import io.zkfence.testing.Signals;
import io.zkfence.testkit.EmbeddedEnsemble;
import io.zkfence.testkit.FreezableProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One worker JVM as the campaign drives it. The worker reaches every ZooKeeper server only
 * through its own {@link FreezableProxy}s, so freezing them cuts it off from the whole ensemble
 * (a partition) while the servers and the other workers carry on.
 */
final class WorkerHandle implements AutoCloseable {

    final String name;
    final Path log;
    /** Where the worker publishes its current ZooKeeper session ({@link SessionExpiry}). */
    final Path session;

    private final List<FreezableProxy> proxies = new ArrayList<>();
    private final List<String> command;
    private final Path stderr;
    private Process process;

    private WorkerHandle(String name, Path log, Path session, List<String> command, Path stderr) {
        this.name = name;
        this.log = log;
        this.session = session;
        this.command = command;
        this.stderr = stderr;
    }

    static WorkerHandle start(
            String name,
            EmbeddedEnsemble ensemble,
            EmbeddedServers servers,
            String bucket,
            FaultCampaign.Settings settings,
            boolean cohort,
            Path dir) {
        List<FreezableProxy> proxies = new ArrayList<>();
        try {
            for (var server : ensemble.servers()) {
                proxies.add(new FreezableProxy(server.getPort()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the proxies of " + name, e);
        }
        String connect = proxies.stream().map(FreezableProxy::connectString).collect(Collectors.joining(","));
        Path log = dir.resolve(name + ".jsonl");
        Path session = dir.resolve(name + ".session");
        try {
            // the log exists before the worker's JVM is up: read while it starts, it has no attempts yet
            Files.write(log, new byte[0], StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the log of " + name + ": " + log, e);
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx192m",
                "-Dorg.jooq.no-logo=true",
                "-Dorg.jooq.no-tips=true",
                "-Djava.io.tmpdir=" + dir.toAbsolutePath(),
                "-cp",
                System.getProperty("java.class.path"),
                FaultWorker.class.getName(),
                name,
                connect,
                servers.jdbcUrl(),
                servers.s3Endpoint().toString(),
                bucket,
                Integer.toString(settings.locks()),
                Integer.toString(settings.threads()),
                Long.toString(FaultCampaign.SESSION.toMillis()),
                log.toString(),
                session.toString()));
        if (cohort) {
            command.add("cohort");
        }
        WorkerHandle w = new WorkerHandle(name, log, session, command, dir.resolve(name + ".stderr.log"));
        w.proxies.addAll(proxies);
        w.restart();
        return w;
    }

    /** Starts (again) the worker's JVM; its log is appended to. */
    synchronized void restart() {
        if (process != null && process.isAlive()) {
            return; // restarted by another fault already
        }
        try {
            process = new ProcessBuilder(command)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start worker " + name, e);
        }
    }

    /** SIGSTOP; nothing if it is not running (killed by another fault meanwhile). */
    synchronized void stop() {
        Signals.stop(process);
    }

    /** SIGCONT; nothing if it is not running. */
    synchronized void resume() {
        Signals.resume(process);
    }

    synchronized void partition() {
        proxies.forEach(FreezableProxy::freeze);
    }

    synchronized void heal() {
        proxies.forEach(FreezableProxy::thaw);
    }

    synchronized void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public synchronized void close() {
        resume();
        heal();
        kill();
        for (FreezableProxy p : proxies) {
            try {
                p.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}

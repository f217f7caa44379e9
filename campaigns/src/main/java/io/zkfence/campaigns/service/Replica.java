package io.zkfence.campaigns.service;

import io.zkfence.testing.Signals;
import io.zkfence.testkit.EmbeddedEnsemble;
import io.zkfence.testkit.FreezableProxy;
import io.zkfence.testkit.internal.ListenPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.zookeeper.RoutedClientCnxnSocket;

/**
 * One replica of the lock service as the campaign drives it: {@code io.zkfence.server.ServerCommand}
 * in a JVM of its own ({@code --no-auth}, a fixed port so that it comes back where the workers look
 * for it), reaching each ZooKeeper server only through its own {@link FreezableProxy} (routed at
 * ZooKeeper's client socket, {@link RoutedClientCnxnSocket}), and reached by the workers only
 * through a {@link DelayProxy}. Started again, it may run under libfaketime with its clock skewed.
 */
final class Replica implements AutoCloseable {

    /** The replica's ZooKeeper session timeout: ServerCommand's, 15 s (not a flag). */
    static final Duration SESSION = Duration.ofSeconds(15);

    final String name;
    final int port;
    final DelayProxy front;

    private final List<FreezableProxy> zookeeperProxies;
    private final String routes;
    private final String root;
    private final Path log;
    private final Path libfaketime;
    private Process process;
    private int incarnation;
    private volatile long skewSeconds;

    private Replica(
            String name,
            int port,
            List<FreezableProxy> zookeeperProxies,
            String routes,
            String root,
            Path log,
            Path libfaketime) {
        this.name = name;
        this.port = port;
        this.front = new DelayProxy(port);
        this.zookeeperProxies = zookeeperProxies;
        this.routes = routes;
        this.root = root;
        this.log = log;
        this.libfaketime = libfaketime;
    }

    /** Starts replica {@code name} on a free port and waits until it serves. */
    static Replica start(String name, EmbeddedEnsemble ensemble, String root, Path dir, Path libfaketime) {
        List<FreezableProxy> proxies = new ArrayList<>();
        List<String> routes = new ArrayList<>();
        try {
            for (var server : ensemble.servers()) {
                FreezableProxy p = new FreezableProxy(server.getPort());
                proxies.add(p);
                routes.add(server.getPort() + "="
                        + p.connectString().substring(p.connectString().lastIndexOf(':') + 1));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the ZooKeeper proxies of " + name, e);
        }
        Replica r = new Replica(
                name, freePort(), proxies, String.join(",", routes), root, dir.resolve(name + ".log"), libfaketime);
        r.restart();
        return r;
    }

    /** The replica's own address, bypassing its {@link DelayProxy} (the campaign's observer uses it). */
    String directUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** How many times it was started. */
    synchronized int incarnation() {
        return incarnation;
    }

    /** The clock skew it runs with now, in seconds (0: none). */
    long skewSeconds() {
        return skewSeconds;
    }

    /**
     * Starts the replica again (after a kill, or to change its clock), with the skew last set, and
     * waits until it answers.
     *
     * @throws IllegalStateException if it does not answer within 90 s (with its log's end)
     */
    synchronized void restart() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is running: kill or stop it first");
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx256m",
                "-Dzookeeper.clientCnxnSocket=" + RoutedClientCnxnSocket.class.getName(),
                "-D" + RoutedClientCnxnSocket.ROUTES + "=" + routes,
                "-cp",
                System.getProperty("java.class.path"),
                "io.zkfence.server.ServerCommand",
                "--zookeeper",
                zookeeperProxies.stream().map(FreezableProxy::connectString).collect(Collectors.joining(",")),
                "--no-auth",
                "--bind",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--root",
                root,
                // A replica's warm-up runs a thousand cycles on a lock of its own before readiness;
                // the campaign restarts replicas dozens of times on two cores, where each warm-up
                // would take a core for half a minute and slow every worker's calls with it.
                "--warm-up-cycles",
                "0"));
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        long skew = skewSeconds;
        if (skew != 0) {
            // libfaketime shifts every clock of the process, the monotonic one too: a JVM under it
            // with FAKETIME_DONT_FAKE_MONOTONIC=1 returns from every timed wait at once (checked).
            Map<String, String> env = pb.environment();
            env.put("LD_PRELOAD", libfaketime.toString());
            env.put("FAKETIME", (skew > 0 ? "+" : "") + skew + "s");
        }
        try {
            Files.writeString(
                    log,
                    "---- campaign: starting " + name + " (clock skew " + skew + " s)\n",
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start replica " + name, e);
        }
        incarnation++;
        awaitAnswering();
    }

    /** Sets the clock skew the next {@link #restart()} runs with. */
    void skew(long seconds) {
        skewSeconds = seconds;
    }

    private void awaitAnswering() {
        HttpClient http = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(1))
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        HttpRequest live = HttpRequest.newBuilder(URI.create(directUrl() + "/health/live"))
                .timeout(Duration.ofSeconds(2))
                .build();
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                if (http.send(live, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting " + name, e);
            }
            ServiceCampaign.sleep(Duration.ofMillis(100));
        }
        throw new IllegalStateException(name + " did not answer within 90 s (alive: " + process.isAlive()
                + "); the end of its log " + log + ":\n" + tail());
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    synchronized void kill() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while killing " + name, e);
            }
        }
    }

    /** SIGTERM: the replica's graceful shutdown; forcibly after 30 s. */
    synchronized void terminate() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    kill();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while stopping " + name, e);
            }
        }
    }

    /** SIGSTOP; nothing if it is not running (killed by another fault meanwhile). */
    synchronized void pause() {
        if (process != null) {
            Signals.stop(process);
        }
    }

    /** SIGCONT; nothing if it is not running. */
    synchronized void resume() {
        if (process != null) {
            Signals.resume(process);
        }
    }

    /** Cuts the replica off from every ZooKeeper server (its proxies swallow every byte). */
    void cutOff() {
        zookeeperProxies.forEach(FreezableProxy::freeze);
    }

    void heal() {
        zookeeperProxies.forEach(FreezableProxy::thaw);
    }

    @Override
    public void close() {
        resume();
        heal();
        terminate();
        front.close();
        for (FreezableProxy p : zookeeperProxies) {
            try {
                p.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * A port below the ephemeral range: restarted on it after a kill, the server must find it free,
     * and a port in that range could meanwhile be any outgoing connection's local port.
     */
    private static int freePort() {
        return ListenPorts.pick(Set.of());
    }
}

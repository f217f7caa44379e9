package io.zkfence.samples.demo;

import io.zkfence.testing.Signals;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The demo's side of one {@link Pod}: a separate JVM started from this JVM's java and class path.
 * A reader thread turns the pod's standard output into {@link PodEvent}s, hands each to the
 * timeline as it arrives and keeps it for {@link #await}; the pod's standard error goes to a log
 * file shown when something goes wrong.
 */
final class PodProcess implements AutoCloseable {

    private static final List<String> JVM_OPTIONS = List.of(
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xmx256m", // start fast on a small machine
            "-Dorg.jooq.no-logo=true",
            "-Dorg.jooq.no-tips=true");

    final String name;
    private final Process process;
    private final Writer commands;
    private final Path log;
    private final Thread reader;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final List<PodEvent> received = new ArrayList<>();
    private final List<Boolean> consumed = new ArrayList<>();

    private PodProcess(String name, Process process, Path log, Consumer<PodEvent> onEvent) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.reader = new Thread(() -> read(onEvent), name + "-events");
        this.reader.setDaemon(true);
        this.reader.start();
    }

    /** Starts the pod's JVM; its events go to {@code onEvent} (on the reader thread) as they arrive. */
    static PodProcess start(String name, Endpoints endpoints, Path workDir, Consumer<PodEvent> onEvent) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        // Whatever a pod's libraries write to the temporary folder lands in the demo's, deleted with it.
        command.add("-Djava.io.tmpdir=" + workDir.toAbsolutePath());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Pod.class.getName()));
        command.addAll(endpoints.podArguments(name));
        Path log = workDir.resolve(name + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(log.toFile());
        Map<String, String> env = builder.environment();
        env.putAll(endpoints.podEnvironment());
        try {
            return new PodProcess(name, builder.start(), log, onEvent);
        } catch (IOException e) {
            throw new StoryFailedException("cannot start the JVM of " + name + ": " + e.getMessage(), e);
        }
    }

    long pid() {
        return process.pid();
    }

    /** Sends one command line; the pod reads it even while stopped, once it runs again. */
    void send(String command) {
        try {
            commands.write(command + "\n");
            commands.flush();
        } catch (IOException e) {
            throw new StoryFailedException(
                    name + " does not take commands any more (" + e.getMessage() + ")", logTail(), e);
        }
    }

    /**
     * The first event of {@code kind} not returned before, waiting up to {@code patience}.
     *
     * @throws StoryFailedException if the pod reports an error, exits, or the event does not come
     */
    PodEvent await(String kind, Duration patience) {
        return await(kind, e -> true, patience);
    }

    /** Like {@link #await(String, Duration)}, for the first such event that also matches {@code test}. */
    PodEvent await(String kind, Predicate<PodEvent> test, Duration patience) {
        Instant deadline = Instant.now().plus(patience);
        lock.lock();
        try {
            while (true) {
                for (int i = 0; i < received.size(); i++) {
                    PodEvent e = received.get(i);
                    if (consumed.get(i)) {
                        continue;
                    }
                    if (e.kind().equals(kind) && test.test(e)) {
                        consumed.set(i, true);
                        return e;
                    }
                    if (e.kind().equals("error")) {
                        consumed.set(i, true);
                        throw new StoryFailedException(name + " failed: " + e.get("message"), logTail(), null);
                    }
                    if (e.kind().equals("exited")) {
                        throw new StoryFailedException(
                                name + " exited (code " + e.get("code") + ") while the demo" + " waited for '" + kind
                                        + "'",
                                logTail(),
                                null);
                    }
                }
                long left = Duration.between(Instant.now(), deadline).toNanos();
                if (left <= 0) {
                    throw new StoryFailedException(
                            name + " did not report '" + kind + "' within " + patience.toSeconds() + " s");
                }
                arrived.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoryFailedException("interrupted while waiting for " + name + " to report '" + kind + "'", e);
        } finally {
            lock.unlock();
        }
    }

    /** An event of {@code kind} already received, if any (whether or not awaited). */
    Optional<PodEvent> seen(String kind) {
        lock.lock();
        try {
            return received.stream().filter(e -> e.kind().equals(kind)).findFirst();
        } finally {
            lock.unlock();
        }
    }

    /** Every event received so far, in order. */
    List<PodEvent> events() {
        lock.lock();
        try {
            return List.copyOf(received);
        } finally {
            lock.unlock();
        }
    }

    /** SIGSTOP: the pod runs no thread at all until {@link #thaw}, not even its ZooKeeper heartbeat. */
    void freeze() {
        signal(Signals::stop, "frozen (kill -STOP)");
    }

    /** SIGCONT: the pod runs again from where it stopped. */
    void thaw() {
        signal(Signals::resume, "resumed (kill -CONT)");
    }

    private void signal(Predicate<Process> signal, String what) {
        boolean sent;
        try {
            sent = signal.test(process);
        } catch (IllegalStateException | UncheckedIOException e) {
            throw new StoryFailedException(name + " could not be " + what + ": " + e.getMessage(), e);
        }
        if (!sent) {
            throw new StoryFailedException(name + " had exited before it could be " + what, logTail(), null);
        }
    }

    /** Waits for the pod to exit after {@code exit}; false if it did not within the patience. */
    boolean awaitExit(Duration patience) {
        try {
            return process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Ends the pod however it is: continued first (a stopped process does not act on SIGTERM
     * until continued), then asked to terminate, then killed.
     */
    @Override
    public void close() {
        if (process.isAlive()) {
            Signals.resume(process); // false if already gone since the check: nothing to continue
            process.destroy();
            if (!awaitExit(Duration.ofSeconds(5))) {
                process.destroyForcibly();
                awaitExit(Duration.ofSeconds(5));
            }
        }
        try {
            reader.join(Duration.ofSeconds(5)); // its last event, the exit, is on the timeline before we go on
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void read(Consumer<PodEvent> onEvent) {
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                PodEvent.decode(name, line).ifPresent(e -> add(e, onEvent));
            }
        } catch (IOException e) {
            // The pipe broke: the process is gone; the exit event below says so.
        }
        int code;
        try {
            code = process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            code = -1;
        }
        add(new PodEvent(Instant.now(), name, "exited", Map.of("code", Integer.toString(code))), onEvent);
    }

    private void add(PodEvent e, Consumer<PodEvent> onEvent) {
        onEvent.accept(e);
        lock.lock();
        try {
            received.add(e);
            consumed.add(false);
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The end of the pod's log, for error messages. */
    String logTail() {
        try {
            List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
            List<String> tail = lines.subList(Math.max(0, lines.size() - 25), lines.size());
            return tail.isEmpty() ? "" : "last lines of " + name + "'s log:\n    " + String.join("\n    ", tail);
        } catch (IOException e) {
            return "";
        }
    }
}

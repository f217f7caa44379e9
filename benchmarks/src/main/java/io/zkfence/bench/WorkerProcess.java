package io.zkfence.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM the harness drives line by line: commands on its stdin, answers on its stdout. It
 * runs with the harness's own JDK ({@code java.home}) and class path ({@code java.class.path}), so
 * it measures exactly the code the harness does. Its stderr goes to the harness's.
 *
 * <p>Answers are read by a thread of their own and stamped with {@link System#nanoTime()} on
 * arrival; lines that are not answers (a library printing to stdout) are passed on to stderr.
 */
final class WorkerProcess implements AutoCloseable {

    /** One line from the child, or its end of output ({@code text} empty). */
    record Line(Optional<String> text, long receivedNanos) {}

    private final String name;
    private final Process process;
    private final PrintWriter stdin;
    private final BlockingQueue<Line> lines = new LinkedBlockingQueue<>();

    private WorkerProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        this.stdin = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
        Thread.ofPlatform().daemon().name(name + "-stdout").start(this::readAnswers);
    }

    /** Starts {@code main} in a new JVM with {@code jvmFlags}, passing it {@code args}. */
    static WorkerProcess start(String name, List<String> jvmFlags, Class<?> main, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(args);
        try {
            return new WorkerProcess(
                    name,
                    new ProcessBuilder(command)
                            .redirectError(ProcessBuilder.Redirect.INHERIT)
                            .start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
    }

    String name() {
        return name;
    }

    void send(String command) {
        stdin.println(command);
        if (stdin.checkError()) {
            throw new IllegalStateException(name + " no longer reads commands (exited: " + !process.isAlive() + ")");
        }
    }

    /**
     * The next answer that starts with {@code prefix}, with its arrival time. An answer starting with
     * {@code failed} or the end of the child's output ends the wait with an IllegalStateException.
     */
    Line await(String prefix, String failed, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                Line line = lines.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new IllegalStateException(name + " gave no '" + prefix.trim() + "' answer within " + timeout);
                }
                if (line.text().isEmpty()) {
                    throw new IllegalStateException(name + " ended (exit " + exitCodeSoon() + ") before answering '"
                            + prefix.trim() + "'; its stderr is above");
                }
                String text = line.text().get();
                if (text.startsWith(failed)) {
                    throw new IllegalStateException(name + " failed: " + text.substring(failed.length()));
                }
                if (text.startsWith(prefix)) {
                    return line;
                }
                System.err.println(name + ": " + text);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + name, e);
        }
    }

    /**
     * Sends {@code quit} and waits for the child to exit with status 0; a child that does not exit
     * within 30 s is killed. Any other outcome is an IllegalStateException.
     */
    void quit(String quit) {
        if (process.isAlive()) {
            stdin.println(quit);
        }
        stdin.close();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
                throw new IllegalStateException(name + " did not exit within 30 s of '" + quit + "'; killed");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + name + " to exit", e);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(name + " exited with status " + process.exitValue());
        }
    }

    /** Kills the child if it still runs (the path when a workload fails before {@link #quit(String)}). */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }

    private void readAnswers() {
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                lines.add(new Line(Optional.of(line), System.nanoTime()));
            }
        } catch (IOException e) {
            // The pipe broke (the child was killed): the waiter learns it from the end-of-output line.
            System.err.println(name + ": reading its output failed: " + e);
        } finally {
            lines.add(new Line(Optional.empty(), System.nanoTime()));
        }
    }

    private String exitCodeSoon() {
        try {
            return process.waitFor(5, TimeUnit.SECONDS) ? String.valueOf(process.exitValue()) : "still running";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown, interrupted";
        }
    }
}

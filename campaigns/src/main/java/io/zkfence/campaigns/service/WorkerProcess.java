package io.zkfence.campaigns.service;

import io.zkfence.testing.Signals;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One worker process as the campaign drives it, Java ({@link ServiceWorker}) or Python
 * ({@code campaigns/python/faults_worker.py}): started, paused, killed, started again (its log is
 * appended to), and at the end told to stop (SIGTERM), so that it releases what it holds.
 */
final class WorkerProcess implements AutoCloseable {

    final String name;
    final Path log;
    final boolean python;

    private final List<String> command;
    private final Path stderr;
    private Process process;

    WorkerProcess(String name, boolean python, List<String> command, Path log, Path stderr) {
        this.name = name;
        this.python = python;
        this.command = command;
        this.log = log;
        this.stderr = stderr;
    }

    /** Starts (again) the worker; nothing if it runs (restarted by another fault already). */
    synchronized void restart() {
        if (process != null && process.isAlive()) {
            return;
        }
        try {
            process = new ProcessBuilder(command)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
                    .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start worker " + name + ": " + command, e);
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

    synchronized void kill() {
        process.destroyForcibly();
        await(Duration.ofSeconds(10));
    }

    /** SIGTERM: the worker finishes its leases and exits; killed if it has not within {@code within}. */
    synchronized void stop(Duration within) {
        if (process == null || !process.isAlive()) {
            return;
        }
        resume();
        process.destroy();
        if (!await(within)) {
            kill();
        }
    }

    boolean alive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    private boolean await(Duration within) {
        try {
            return process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping worker " + name, e);
        }
    }

    @Override
    public synchronized void close() {
        if (process != null && process.isAlive()) {
            resume();
            kill();
        }
    }
}

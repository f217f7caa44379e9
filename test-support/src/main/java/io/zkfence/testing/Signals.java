package io.zkfence.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * SIGSTOP and SIGCONT for a child process, through the system's {@code kill} command (the JDK can
 * only send SIGTERM and SIGKILL). A stopped process runs no thread at all, not even the ZooKeeper
 * client's heartbeat: the closest thing to a long stop-the-world GC pause or a frozen VM. The demo
 * freezes its pod with it, the fault campaigns their workers and the service's replicas.
 */
public final class Signals {

    private static final long KILL_PATIENCE_SECONDS = 10;

    private Signals() {}

    /**
     * Stops {@code process} (SIGSTOP).
     *
     * @return false if the process had already exited, so there was nothing to stop
     * @throws IllegalStateException if {@code kill} failed on a process that is still running
     * @throws UncheckedIOException if there is no {@code kill} to run (not a POSIX system)
     */
    public static boolean stop(Process process) {
        return send("-STOP", process);
    }

    /**
     * Lets a stopped {@code process} run again (SIGCONT); a running one is not affected.
     *
     * @return false if the process had already exited
     * @throws IllegalStateException if {@code kill} failed on a process that is still running
     * @throws UncheckedIOException if there is no {@code kill} to run (not a POSIX system)
     */
    public static boolean resume(Process process) {
        return send("-CONT", process);
    }

    /**
     * What {@code /proc} says of the process's state ("T (stopped)", "S (sleeping)"), where there is
     * a {@code /proc}; empty elsewhere, and for a process that is gone.
     */
    public static String state(long pid) {
        Path status = Path.of("/proc", Long.toString(pid), "status");
        try {
            return Files.readAllLines(status).stream()
                    .filter(l -> l.startsWith("State:"))
                    .map(l -> l.substring("State:".length()).strip())
                    .findFirst()
                    .orElse("");
        } catch (IOException e) {
            return "";
        }
    }

    private static boolean send(String signal, Process process) {
        if (!process.isAlive()) {
            return false;
        }
        String command = "kill " + signal + " " + process.pid();
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!kill.waitFor(KILL_PATIENCE_SECONDS, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException(command + " did not end within " + KILL_PATIENCE_SECONDS + " s");
            }
            if (kill.exitValue() != 0) {
                if (!process.isAlive()) {
                    return false; // it exited between the check and the signal
                }
                throw new IllegalStateException(command + " failed (exit " + kill.exitValue() + "): " + output);
            }
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run '" + command + "' (this needs a POSIX system)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running '" + command + "'", e);
        }
    }
}

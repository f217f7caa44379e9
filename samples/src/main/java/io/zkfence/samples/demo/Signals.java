package io.zkfence.samples.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * SIGSTOP and SIGCONT for a child process, through the {@code kill} command (the JDK can only
 * send SIGTERM and SIGKILL). A stopped process runs no thread at all, not even the ZooKeeper
 * client's heartbeat: the closest thing to a long stop-the-world GC pause or a frozen VM.
 */
final class Signals {

    private Signals() {}

    static void stop(long pid) {
        send("-STOP", pid);
    }

    static void resume(long pid) {
        send("-CONT", pid);
    }

    /** What /proc says about the process ("T (stopped)"), where there is a /proc; empty elsewhere. */
    static String procState(long pid) {
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

    private static void send(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes()).strip();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new StoryFailedException("kill " + signal + " " + pid + " failed: " + output);
            }
        } catch (IOException e) {
            throw new StoryFailedException(
                    "cannot run 'kill " + signal + " " + pid + "' (the demo needs a POSIX system)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoryFailedException("interrupted while sending " + signal + " to " + pid, e);
        }
    }
}

package io.zkfence.campaigns.service;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/** {@code kill -STOP} and {@code kill -CONT} for the campaign's processes (a POSIX system's kill). */
final class Signals {

    private Signals() {}

    /** Sends {@code signal} to {@code process}; nothing if it is not running (killed by another fault meanwhile). */
    static void send(Process process, String signal, String name) {
        if (process == null || !process.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || (kill.exitValue() != 0 && process.isAlive())) {
                throw new IllegalStateException("kill " + signal + " " + process.pid() + " (" + name + ") failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill (the campaign needs a POSIX system)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}

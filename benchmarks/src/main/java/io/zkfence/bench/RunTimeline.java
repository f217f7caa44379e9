package io.zkfence.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The clock and the event log of a scripted metrics run ({@link MetricsRun}, {@link ServiceMetricsRun}):
 * seconds since the run started, steps scheduled at a second of the script, and every event noted
 * as it happens, printed and kept for the run's text file.
 */
final class RunTimeline {

    private final long startNanos = System.nanoTime();
    private final List<String> lines = new ArrayList<>();

    /** Seconds since the run started. */
    double now() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /** Prints {@code event} with the time and keeps it; safe from any thread. */
    void note(String event) {
        String line = String.format("%5.1f s  %s", now(), event);
        synchronized (lines) {
            lines.add(line);
        }
        System.out.println(line);
    }

    /** Runs {@code step} on {@code script} at {@code second} of the run (at once if that has passed). */
    ScheduledFuture<?> at(ScheduledExecutorService script, double second, Runnable step) {
        long delay = Math.max(0, (long) ((second - now()) * 1000));
        return script.schedule(step, delay, TimeUnit.MILLISECONDS);
    }

    /** Appends every noted line, indented, one per line. */
    void appendTo(StringBuilder sb) {
        synchronized (lines) {
            lines.forEach(l -> sb.append("  ").append(l).append('\n'));
        }
    }
}

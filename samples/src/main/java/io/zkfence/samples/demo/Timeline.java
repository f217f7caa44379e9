package io.zkfence.samples.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * The demo's running account, printed as things happen: wall-clock time (this machine's zone),
 * seconds since the demo started, who, what. Pods' events carry their own timestamps (same
 * machine, same clock); the demo's own actions are stamped when it takes them.
 */
final class Timeline {

    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    private final PrintStream out;
    private final Instant start;

    Timeline(PrintStream out, Instant start) {
        this.out = out;
        this.start = start;
    }

    Instant start() {
        return start;
    }

    void header() {
        out.printf("%-12s  %8s  %-5s  %s%n", "time (" + ZoneId.systemDefault().getId() + ")", "+s", "who", "what");
    }

    synchronized void add(Instant at, String who, String what) {
        double since = Duration.between(start, at).toMillis() / 1000.0;
        out.printf("%-12s  %8.3f  %-5s  %s%n", CLOCK.format(at), since, who, what);
    }

    /** A continuation line under the previous entry. */
    synchronized void detail(String text) {
        out.printf("%-12s  %8s  %-5s    %s%n", "", "", "", text);
    }

    /** Plain text outside the table (headings, the final table, the verdict). */
    synchronized void text(String line) {
        out.println(line);
    }
}

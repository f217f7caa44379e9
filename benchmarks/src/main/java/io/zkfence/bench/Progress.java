package io.zkfence.bench;

import java.io.PrintStream;
import java.time.Duration;

/** The harness's progress lines, the command's own output, stamped with the time since the run started. */
final class Progress {

    private final PrintStream out;
    private final long start = System.nanoTime();

    Progress(PrintStream out) {
        this.out = out;
    }

    void say(String format, Object... args) {
        Duration d = Duration.ofNanos(System.nanoTime() - start);
        out.printf("[bench %3d:%02d] %s%n", d.toMinutes(), d.toSecondsPart(), String.format(format, args));
        out.flush();
    }
}

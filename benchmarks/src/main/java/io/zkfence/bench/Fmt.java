package io.zkfence.bench;

import java.util.Locale;

/** Number formats for the report. */
final class Fmt {

    private Fmt() {}

    /** Microseconds as µs below 10 ms, else ms. */
    static String us(double micros) {
        if (micros < 10_000) {
            return String.format(Locale.ROOT, "%,.0f µs", micros);
        }
        return String.format(Locale.ROOT, "%,.1f ms", micros / 1_000);
    }

    static String ratio(double r) {
        return String.format(Locale.ROOT, "%.2f×", r);
    }

    static String num(double v) {
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }

    static String latencyRow(String name, Latency l) {
        return "| " + name + " | " + l.count() + " | " + us(l.p50()) + " | " + us(l.p99()) + " | " + us(l.p999())
                + " | " + us(l.max()) + " | " + us(l.mean()) + " |";
    }

    static final String LATENCY_HEADER =
            "| variant | samples | p50 | p99 | p99.9 | max | mean |\n|---|---:|---:|---:|---:|---:|---:|";
}

package io.zkfence.bench;

import java.util.Locale;
import java.util.StringJoiner;

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

    /** One Markdown table row, newline included; each cell as {@link String#valueOf(Object)} writes it. */
    static String row(Object... cells) {
        return cells(cells) + "\n";
    }

    static String latencyRow(String name, Latency l) {
        return cells(name, l.count(), us(l.p50()), us(l.p99()), us(l.p999()), us(l.max()), us(l.mean()));
    }

    private static String cells(Object... cells) {
        StringJoiner row = new StringJoiner(" | ", "| ", " |");
        for (Object cell : cells) {
            row.add(String.valueOf(cell));
        }
        return row.toString();
    }

    static final String LATENCY_HEADER =
            "| variant | samples | p50 | p99 | p99.9 | max | mean |\n|---|---:|---:|---:|---:|---:|---:|";
}

package io.zkfence.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What the fencing-overhead workloads (5a to 5d) measure and report alike: their variants
 * interleaved over the settings' fence rounds with each one's latency recorded, the fenced ÷ plain
 * ratios, the latency table and the percentile chart.
 */
final class FenceOverhead {

    private FenceOverhead() {}

    /**
     * Runs {@code ops} interleaved ({@link Interleaved}, the settings' fence rounds) and records
     * each variant's latency as {@code prefix.<variant>}.
     *
     * @return each variant's latency, in the order of {@code ops}
     */
    static Map<String, Latency> interleave(Settings s, Results r, String prefix, List<Op> ops) {
        Map<String, Histogram> hs = Interleaved.run(ops, s.fenceWarmupRounds(), s.fenceRounds(), s.fenceOpsPerRound());
        Map<String, Latency> lat = new LinkedHashMap<>();
        hs.forEach((n, h) -> {
            lat.put(n, Latency.of(h));
            r.latency(prefix + "." + n, lat.get(n));
        });
        return lat;
    }

    /**
     * Records fenced ÷ plain of the p50s and of the means as {@code prefix.ratio.fenced_vs_plain.p50}
     * and {@code .mean}.
     *
     * @return the p50 ratio
     */
    static double ratio(Results r, String prefix, Latency fenced, Latency plain) {
        double ratio = fenced.p50() / plain.p50();
        r.figure(prefix + ".ratio.fenced_vs_plain.p50", ratio);
        r.figure(prefix + ".ratio.fenced_vs_plain.mean", fenced.mean() / plain.mean());
        return ratio;
    }

    /** Appends the variants' latency table. */
    static void latencyTable(StringBuilder md, Map<String, Latency> lat) {
        md.append(Fmt.LATENCY_HEADER).append('\n');
        lat.forEach((n, l) -> md.append(Fmt.latencyRow(n, l)).append('\n'));
    }

    /** Appends the line "Fenced ÷ plain p50: **r** (mean ÷ mean m)", for the workload to go on. */
    static void ratioLine(StringBuilder md, Latency fenced, Latency plain) {
        md.append("\nFenced ÷ plain p50: **")
                .append(Fmt.ratio(fenced.p50() / plain.p50()))
                .append("** (mean ÷ mean ")
                .append(Fmt.ratio(fenced.mean() / plain.mean()))
                .append(")");
    }

    /**
     * Draws each variant's p50, p99 and p99.9 as bars.
     *
     * @return the chart's file name, for the section to link
     */
    static String plot(BenchContext ctx, String file, String title, Map<String, Latency> lat) {
        Map<String, List<Double>> series = new LinkedHashMap<>();
        lat.forEach((n, l) -> series.put(n, List.of(l.p50(), l.p99(), l.p999())));
        return Plots.bars(ctx.out(), file, title, "percentile", "latency (µs)", List.of("p50", "p99", "p99.9"), series);
    }
}

package io.zkfence.bench;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Summary of an HdrHistogram of nanosecond latencies, in microseconds.
 *
 * @param count samples recorded
 * @param p50   median
 * @param p99   99th percentile
 * @param p999  99.9th percentile
 * @param max   largest sample
 * @param mean  arithmetic mean
 */
record Latency(long count, double p50, double p99, double p999, double max, double mean) {

    /** Longest latency a histogram records (longer samples are clamped to it). */
    static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(120);

    static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_NANOS, 3);
    }

    static void record(Histogram h, long nanos) {
        h.recordValue(Math.min(Math.max(nanos, 1), HIGHEST_NANOS));
    }

    static Latency of(Histogram h) {
        if (h.getTotalCount() == 0) {
            throw new IllegalStateException("no samples recorded");
        }
        return new Latency(
                h.getTotalCount(),
                us(h.getValueAtPercentile(50)),
                us(h.getValueAtPercentile(99)),
                us(h.getValueAtPercentile(99.9)),
                us(h.getMaxValue()),
                h.getMean() / 1_000.0);
    }

    private static double us(long nanos) {
        return nanos / 1_000.0;
    }
}

package io.zkfence.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Runs compared variants in alternation so that drift (JIT, GC, other work on a shared 2-core
 * machine, the ensemble's log growing) hits all of them alike: each round runs a batch of every
 * variant, in an order that rotates and reverses from round to round. The first rounds warm up
 * and are not recorded.
 */
final class Interleaved {

    private Interleaved() {}

    static Map<String, Histogram> run(List<? extends Op> variants, int warmupRounds, int rounds, int opsPerRound) {
        Map<String, Histogram> histograms = new LinkedHashMap<>();
        for (Op op : variants) {
            histograms.put(op.name(), Latency.newHistogram());
        }
        for (int round = 0; round < warmupRounds + rounds; round++) {
            boolean record = round >= warmupRounds;
            for (Op op : order(variants, round)) {
                Histogram h = histograms.get(op.name());
                for (int i = 0; i < opsPerRound; i++) {
                    long t0 = System.nanoTime();
                    op.run();
                    long t1 = System.nanoTime();
                    if (record) {
                        Latency.record(h, t1 - t0);
                    }
                }
            }
        }
        return histograms;
    }

    /** Round r: rotated by r, reversed on odd rounds (ABC, CBA, BCA, BAC, ...). */
    static <T> List<T> order(List<T> variants, int round) {
        List<T> order = new ArrayList<>(variants);
        Collections.rotate(order, -(round / 2) % Math.max(1, order.size()));
        if (round % 2 == 1) {
            Collections.reverse(order);
        }
        return order;
    }
}

package io.zkfence.server;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The simulation's log: the last lines of what happened (answers, faults, ZooKeeper's writes),
 * each with its simulated time, printed when an invariant fails. Bounded: a long run keeps the
 * end, which is where a failure is explained.
 */
final class SimTrace {

    private final Deque<String> lines = new ArrayDeque<>();
    private final int keep;
    private long dropped;

    SimTrace(int keep) {
        this.keep = keep;
    }

    void add(long micros, String who, String what) {
        if (keep == 0) {
            return;
        }
        lines.addLast(String.format("%9.3f s  %-10s %s", micros / 1e6, who, what));
        if (lines.size() > keep) {
            lines.removeFirst();
            dropped++;
        }
    }

    /** The lines kept, oldest first. */
    String dump() {
        StringBuilder b = new StringBuilder();
        if (dropped > 0) {
            b.append("  (").append(dropped).append(" earlier lines not kept)\n");
        }
        for (String l : lines) {
            b.append("  ").append(l).append('\n');
        }
        return b.toString();
    }

    /**
     * The lines about one key and what happens to the replicas and ZooKeeper (kills, pauses,
     * sessions, elections), from {@code sinceMicros} on: the short trace of a finding.
     */
    String focus(String key, long sinceMicros) {
        StringBuilder b = new StringBuilder();
        String bare = key.substring(key.indexOf(':') + 1);
        for (String l : lines) {
            double at = Double.parseDouble(l.substring(0, 9).trim());
            if (at * 1e6 < sinceMicros) {
                continue;
            }
            boolean aboutKey = l.contains(key) || l.contains(" " + bare + "/");
            boolean otherKey = !aboutKey && (l.contains(" sim:") || l.contains(" key-"));
            boolean world = l.matches(".*(killed|paused|resumed|session|election|leader|starting|ready|stopp"
                    + "|cut off|back in touch|lags|skew|connection lost|CHECKER|uncaught).*");
            if (aboutKey || (world && !otherKey)) {
                b.append("  ").append(l).append('\n');
            }
        }
        return b.toString();
    }

    int size() {
        return lines.size();
    }
}

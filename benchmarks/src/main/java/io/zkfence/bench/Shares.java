package io.zkfence.bench;

/**
 * How evenly grants went to the groups (clients, processes) of a contended lock: each group's
 * share against a fair, equal share. The fairness bound reads as "every group within
 * ±25 % of a fair share", so the figure is the worst group's relative deviation.
 */
final class Shares {

    private Shares() {}

    /**
     * The largest |grants − fair| ÷ fair over the groups, fair being total ÷ groups: 0 for equal
     * shares, 1 for a group that got nothing (or twice its share).
     *
     * @throws IllegalArgumentException for no groups or no grants at all (no share to judge)
     */
    static double worstDeviation(long[] perGroup) {
        if (perGroup.length == 0) {
            throw new IllegalArgumentException("no groups");
        }
        long total = 0;
        for (long g : perGroup) {
            if (g < 0) {
                throw new IllegalArgumentException("negative grant count " + g);
            }
            total += g;
        }
        if (total == 0) {
            throw new IllegalArgumentException("no grants in " + perGroup.length + " groups");
        }
        double fair = total / (double) perGroup.length;
        double worst = 0;
        for (long g : perGroup) {
            worst = Math.max(worst, Math.abs(g - fair) / fair);
        }
        return worst;
    }

    /** The counts as the report lists them: {@code 10 / 12 / 9}. */
    static String list(long[] perGroup) {
        StringBuilder sb = new StringBuilder();
        for (long g : perGroup) {
            sb.append(sb.isEmpty() ? "" : " / ").append(g);
        }
        return sb.toString();
    }

    /** Adds {@code b} to {@code a} element-wise, returning a new array. */
    static long[] plus(long[] a, long[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("group counts differ: " + a.length + " and " + b.length);
        }
        long[] sum = a.clone();
        for (int i = 0; i < sum.length; i++) {
            sum[i] += b[i];
        }
        return sum;
    }
}

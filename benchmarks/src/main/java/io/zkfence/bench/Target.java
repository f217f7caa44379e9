package io.zkfence.bench;

/**
 * One target of the issue, the figure measured for it in this run, and whether it was met.
 *
 * @param id          stable name, also the key in results.json
 * @param workload    which workload measured it
 * @param what        the target in words
 * @param measured    the measured value (usually a ratio)
 * @param comparator  {@code <=}, {@code >=} or {@code ==}
 * @param bound       the target's bound
 * @param evaluated   false for figures reported against a bound for information only (not a target of the issue)
 * @param evidence    what the measured value rests on (the figures divided, request counts)
 * @param unit        how measured and bound read: {@code ×} for a ratio (the default), else a unit
 *                    such as {@code ms}
 */
record Target(
        String id,
        String workload,
        String what,
        double measured,
        String comparator,
        double bound,
        boolean evaluated,
        String evidence,
        String unit) {

    static final String RATIO = "×";

    static Target atMost(String id, String workload, String what, double measured, double bound, String evidence) {
        return new Target(id, workload, what, measured, "<=", bound, true, evidence, RATIO);
    }

    static Target atLeast(String id, String workload, String what, double measured, double bound, String evidence) {
        return new Target(id, workload, what, measured, ">=", bound, true, evidence, RATIO);
    }

    static Target exactly(String id, String workload, String what, double measured, double bound, String evidence) {
        return new Target(id, workload, what, measured, "==", bound, true, evidence, RATIO);
    }

    Target informational() {
        return new Target(id, workload, what, measured, comparator, bound, false, evidence, unit);
    }

    /** The same target, read in {@code newUnit} (for example {@code ms}) instead of as a ratio. */
    Target in(String newUnit) {
        return new Target(id, workload, what, measured, comparator, bound, evaluated, evidence, newUnit);
    }

    boolean met() {
        return switch (comparator) {
            case "<=" -> measured <= bound;
            case ">=" -> measured >= bound;
            case "==" -> Math.abs(measured - bound) < 1e-9;
            default -> throw new IllegalStateException("unknown comparator " + comparator);
        };
    }
}

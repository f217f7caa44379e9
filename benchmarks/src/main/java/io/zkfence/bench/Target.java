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
 */
record Target(String id, String workload, String what, double measured, String comparator, double bound,
        boolean evaluated, String evidence) {

    static Target atMost(String id, String workload, String what, double measured, double bound, String evidence) {
        return new Target(id, workload, what, measured, "<=", bound, true, evidence);
    }

    static Target atLeast(String id, String workload, String what, double measured, double bound, String evidence) {
        return new Target(id, workload, what, measured, ">=", bound, true, evidence);
    }

    static Target exactly(String id, String workload, String what, double measured, double bound, String evidence) {
        return new Target(id, workload, what, measured, "==", bound, true, evidence);
    }

    Target informational() {
        return new Target(id, workload, what, measured, comparator, bound, false, evidence);
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

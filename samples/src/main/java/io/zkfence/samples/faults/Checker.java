package io.zkfence.samples.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The independent checker: it judges what the resources hold, and reconciles the workers' logs
 * against it. A violation is a broken promise:
 * <ul>
 * <li>a write accepted with a token lower than one accepted before it on the same resource
 *     (the fencing promise);</li>
 * <li>a lost or doubled update: a row's counter value is not the previous one plus one, or the
 *     counter does not equal the number of rows;</li>
 * <li>a write a worker was told was rejected as stale, found committed; or one it was told was
 *     accepted, missing.</li>
 * </ul>
 * Committed writes the log does not show (a worker killed between commit and log line) are
 * counted, not violations.
 */
final class Checker {

    /** What the check found. */
    record Result(List<String> violations, int rows, int unloggedCommits, Map<String, Integer> jdbcOutcomes,
            Map<String, Integer> s3Outcomes) {}

    private Checker() {}

    static Result check(List<HistoryRow> history, Map<String, Long> counters, List<Attempt> log) {
        List<String> violations = new ArrayList<>();
        Map<String, Long> maxToken = new HashMap<>();
        Map<String, Long> lastValue = new HashMap<>();
        Map<String, Integer> rowsPer = new HashMap<>();
        Set<String> committed = new HashSet<>();
        for (HistoryRow row : history.stream().sorted((a, b) -> Long.compare(a.id(), b.id())).toList()) {
            long highest = maxToken.getOrDefault(row.resource(), Long.MIN_VALUE);
            if (row.token() < highest) {
                violations.add("fencing: " + row.resource() + " accepted token " + row.token() + " (attempt "
                        + row.attempt() + ", row " + row.id() + ") after token " + highest);
            }
            maxToken.merge(row.resource(), row.token(), Math::max);
            long expected = lastValue.getOrDefault(row.resource(), 0L) + 1;
            if (row.valueAfter() != expected) {
                violations.add("lost or doubled update: " + row.resource() + " row " + row.id() + " has counter "
                        + row.valueAfter() + ", expected " + expected);
            }
            lastValue.put(row.resource(), row.valueAfter());
            rowsPer.merge(row.resource(), 1, Integer::sum);
            committed.add(row.attempt());
        }
        counters.forEach((resource, value) -> {
            int rows = rowsPer.getOrDefault(resource, 0);
            if (value != rows) {
                violations.add("counter: " + resource + " is " + value + " but " + rows + " writes were committed");
            }
        });
        Map<String, Integer> jdbc = new HashMap<>();
        Map<String, Integer> s3 = new HashMap<>();
        Set<String> logged = new HashSet<>();
        for (Attempt a : log) {
            logged.add(a.attempt());
            jdbc.merge(kind(a.jdbc()), 1, Integer::sum);
            s3.merge(kind(a.s3()), 1, Integer::sum);
            if (Attempt.STALE.equals(a.jdbc()) && committed.contains(a.attempt())) {
                violations.add("reconcile: attempt " + a.attempt() + " was rejected as stale but is committed");
            }
            if (Attempt.ACCEPTED.equals(a.jdbc()) && !committed.contains(a.attempt())) {
                violations.add("reconcile: attempt " + a.attempt() + " was accepted but is not in the history");
            }
        }
        int unlogged = (int) committed.stream().filter(c -> !logged.contains(c)).count();
        return new Result(violations, history.size(), unlogged, jdbc, s3);
    }

    private static String kind(String outcome) {
        return outcome.startsWith("error") ? "error" : outcome;
    }
}

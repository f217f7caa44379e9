package io.zkfence.campaigns;

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
 * <li>an attempt id logged twice (the reconciliation would be unsound).</li>
 * <li>two threads of one worker process inside one grant at once: attempts with the same token on
 *     the same resource by different threads whose critical sections overlap. In cohort mode the
 *     threads of a process take turns under one queue node and share its token, so only the
 *     cohort's own exclusion keeps them apart, and no fence can see a breach of it.</li>
 * </ul>
 * Committed writes the log does not show (a worker killed between commit and log line) are
 * counted, not violations.
 */
public final class Checker {

    /**
     * What the check found.
     *
     * @param violations        broken safety promises (must be none)
     * @param rows              committed PostgreSQL writes
     * @param unloggedCommits   committed writes with no log line
     * @param jdbcOutcomes      PostgreSQL outcomes as logged, by kind
     * @param s3Outcomes        S3 outcomes as logged, by kind
     * @param overlaps          critical sections during which another holder (with a higher token) began one
     *                          on the same resource
     * @param overlapRejections writes of those earlier (lower-token) sections that a fence rejected
     * @param overlapsStillHeld overlaps whose earlier side's client still said HELD after its writes
     *                          (it had not yet noticed the loss; the fences decided)
     * @param stalled           workers with no accepted write after the last fault ended (liveness)
     */
    public record Result(
            List<String> violations,
            int rows,
            int unloggedCommits,
            Map<String, Integer> jdbcOutcomes,
            Map<String, Integer> s3Outcomes,
            int overlaps,
            int overlapRejections,
            int overlapsStillHeld,
            List<String> stalled) {}

    private Checker() {}

    /** Judges a campaign's history, counters and logs, without the liveness check. */
    public static Result check(List<HistoryRow> history, Map<String, Long> counters, List<Attempt> log) {
        return check(history, counters, log, Set.of(), Long.MIN_VALUE);
    }

    /** As {@link #check(List, Map, List)}, also judging that each of {@code workers} made progress after {@code lastFaultEnd}. */
    public static Result check(
            List<HistoryRow> history,
            Map<String, Long> counters,
            List<Attempt> log,
            Set<String> workers,
            long lastFaultEnd) {
        List<String> violations = new ArrayList<>();
        Map<String, Long> maxToken = new HashMap<>();
        Map<String, Long> lastValue = new HashMap<>();
        Map<String, Integer> rowsPer = new HashMap<>();
        Set<String> committed = new HashSet<>();
        for (HistoryRow row :
                history.stream().sorted((a, b) -> Long.compare(a.id(), b.id())).toList()) {
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
            if (!logged.add(a.attempt())) {
                // Reconciling by id needs unique ids; a repeat would let one attempt's outcome hide another's.
                violations.add("log: attempt id " + a.attempt() + " is logged more than once");
            }
            jdbc.merge(kind(a.jdbc()), 1, Integer::sum);
            s3.merge(kind(a.s3()), 1, Integer::sum);
            if (Attempt.STALE.equals(a.jdbc()) && committed.contains(a.attempt())) {
                violations.add("reconcile: attempt " + a.attempt() + " was rejected as stale but is committed");
            }
            if (Attempt.ACCEPTED.equals(a.jdbc()) && !committed.contains(a.attempt())) {
                violations.add("reconcile: attempt " + a.attempt() + " was accepted but is not in the history");
            }
        }
        violations.addAll(sharedGrantOverlaps(log));
        int unlogged = (int) committed.stream().filter(c -> !logged.contains(c)).count();
        int[] overlap = overlaps(log);
        List<String> stalled = workers.stream()
                .sorted()
                .filter(w -> log.stream()
                        .noneMatch(a -> a.worker().equals(w)
                                && Attempt.ACCEPTED.equals(a.jdbc())
                                && a.acquiredAt() > lastFaultEnd))
                .toList();
        return new Result(violations, history.size(), unlogged, jdbc, s3, overlap[0], overlap[1], overlap[2], stalled);
    }

    /**
     * {overlaps, rejected writes of their earlier sides, earlier sides still HELD}: see {@link Result}.
     * An overlap is counted once per earlier critical section, however many later holders' sections
     * ran during it (a holder paused for seconds overlaps many short ones).
     */
    private static int[] overlaps(List<Attempt> log) {
        Map<String, List<Attempt>> byResource = new HashMap<>();
        log.stream()
                .filter(a -> a.token() > 0)
                .forEach(a -> byResource
                        .computeIfAbsent(a.resource(), k -> new ArrayList<>())
                        .add(a));
        Map<String, Attempt> earlierSides = new HashMap<>();
        for (List<Attempt> attempts : byResource.values()) {
            attempts.sort((a, b) -> Long.compare(a.acquiredAt(), b.acquiredAt()));
            for (int i = 0; i < attempts.size(); i++) {
                Attempt a = attempts.get(i);
                for (int j = i + 1; j < attempts.size() && attempts.get(j).acquiredAt() < a.atMillis(); j++) {
                    Attempt b = attempts.get(j);
                    if (a.token() == b.token()) {
                        continue; // one grant (a re-entrant or retried attempt), not two holders
                    }
                    Attempt earlier = a.token() < b.token() ? a : b;
                    earlierSides.put(earlier.attempt(), earlier);
                }
            }
        }
        int rejected = 0;
        int stillHeld = 0;
        for (Attempt earlier : earlierSides.values()) {
            rejected += (Attempt.STALE.equals(earlier.jdbc()) ? 1 : 0) + (Attempt.STALE.equals(earlier.s3()) ? 1 : 0);
            if ("HELD".equals(earlier.stateAfter())) {
                stillHeld++;
            }
        }
        return new int[] {earlierSides.size(), rejected, stillHeld};
    }

    /**
     * Critical sections of two threads of one worker process that ran at once under one grant (the
     * same token on the same resource). A section runs from {@code acquiredAt} (after the acquire
     * returned) to {@code atMillis} (logged before the release), so sections that took turns never
     * overlap, even at the millisecond's resolution.
     */
    private static List<String> sharedGrantOverlaps(List<Attempt> log) {
        Map<String, List<Attempt>> byGrant = new HashMap<>();
        log.stream()
                .filter(a -> a.token() > 0 && a.thread() != null)
                .forEach(a -> byGrant.computeIfAbsent(
                                a.worker() + "|" + a.resource() + "|" + a.token(), k -> new ArrayList<>())
                        .add(a));
        List<String> violations = new ArrayList<>();
        for (List<Attempt> sections : byGrant.values()) {
            sections.sort((a, b) -> Long.compare(a.acquiredAt(), b.acquiredAt()));
            for (int i = 0; i < sections.size(); i++) {
                Attempt a = sections.get(i);
                for (int j = i + 1; j < sections.size() && sections.get(j).acquiredAt() < a.atMillis(); j++) {
                    Attempt b = sections.get(j);
                    if (!a.thread().equals(b.thread())) {
                        violations.add("exclusion: " + a.resource() + " token " + a.token() + " was inside threads "
                                + a.thread() + " (attempt " + a.attempt() + ", " + a.acquiredAt() + "-" + a.atMillis()
                                + ") and " + b.thread() + " (attempt " + b.attempt() + ", from " + b.acquiredAt()
                                + ") of " + a.worker() + " at once");
                    }
                }
            }
        }
        return violations;
    }

    private static String kind(String outcome) {
        return outcome.startsWith("error") ? "error" : outcome;
    }
}

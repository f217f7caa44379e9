package io.zkfence.campaigns.service;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Promise 1 judged against ZooKeeper: every 200 (an acquire's or a renewal's) answers a validity,
 * and the lease must live, in ZooKeeper, at least that long (docs/server.md: "the answered validity
 * ends before the lease can end anywhere"). A lease's real end is the first of:
 *
 * <ul>
 * <li>its entry's removal: the finished-request record's creation time, by ZooKeeper's clock (else
 *     the first read that missed the entry, a later bound);
 * <li>for an unconfirmed entry, its replica's session ending while it was tied to it (the first
 *     read that found the session's marker gone);
 * <li>its {@code expiresAt} as ZooKeeper held it after the answer was heard (by the answering
 *     replica's clock: a replica computes the validity from it);
 * <li>the next holder's grant: the first 200 heard, or the first confirmed head seen, with a higher
 *     token on the key.
 * </ul>
 *
 * The answered validity is cut at the caller's release (sent before the lease is released) and at
 * an eviction (a forced release ends a lease on purpose). A validity that outlasts the real end by
 * more than the clock skew allows ({@link Clocks#allowance}) is a finding, one per lease: the
 * largest excess.
 */
final class LeaseEnds {

    /** One answer whose validity outlasted its lease's real end. */
    record Excess(AnsweredLeases.Answer answer, long validUntil, long end, String endedBy, long allowance) {

        long millis() {
            return validUntil - end;
        }
    }

    private LeaseEnds() {}

    static List<Excess> of(
            List<AnsweredLeases.Answer> answers,
            Map<Long, Long> releasesSent,
            Map<Long, Long> evictions,
            Collection<QueueObserver.Seen> entries,
            Clocks clocks) {
        Map<Long, QueueObserver.Seen> seen = new HashMap<>();
        entries.forEach(s -> seen.put(s.fencingToken, s));
        // The next holder of each key: grants heard, and confirmed heads seen in ZooKeeper, by token.
        Map<String, List<long[]>> grantsByKey = new HashMap<>();
        for (AnsweredLeases.Answer a : answers) {
            if ("acquire".equals(a.op())) {
                grantsByKey.computeIfAbsent(a.key(), k -> new ArrayList<>()).add(new long[] {a.token(), a.heardAt()});
            }
        }
        for (QueueObserver.Seen s : entries) {
            if (s.grantedSeen > 0) {
                grantsByKey
                        .computeIfAbsent(ServiceCampaign.keyOfLock(s.lock), k -> new ArrayList<>())
                        .add(new long[] {s.fencingToken, s.grantedSeen});
            }
        }
        Map<Long, List<AnsweredLeases.Answer>> byToken = new HashMap<>();
        for (AnsweredLeases.Answer a : answers) {
            byToken.computeIfAbsent(a.token(), t -> new ArrayList<>()).add(a);
        }
        Map<Long, Excess> worst = new HashMap<>();
        for (AnsweredLeases.Answer a : answers) {
            long token = a.token();
            // Who may have written expiresAt from this answer on: its replica, then each later renewal's.
            List<AnsweredLeases.Answer> writers = byToken.get(token).stream()
                    .filter(b -> b.sentAt() >= a.sentAt())
                    .toList();
            long lowest = clocks.lowestOffset(writers);
            long until = Math.min(
                    a.validUntil(),
                    Math.min(
                            releasesSent.getOrDefault(token, Long.MAX_VALUE),
                            evictions.getOrDefault(token, Long.MAX_VALUE)));
            List<Excess> found = new ArrayList<>();
            QueueObserver.Seen s = seen.get(token);
            if (s != null) {
                long removed = s.removedBy();
                if (removed > 0) {
                    long allowance = clocks.allowanceBelow(
                            lowest, Math.min(a.sentAt(), removed), Math.max(a.heardAt(), removed));
                    found.add(new Excess(
                            a,
                            until,
                            removed,
                            "its entry was removed"
                                    + (s.removedAt > 0
                                            ? " (" + s.removedAs + ", by the finished record's time)"
                                            : " (by then: the first read that missed it)"),
                            allowance));
                }
                if (s.sessionEndedSeen > 0) {
                    // ZooKeeper's clock ends a session and the validity is counted on monotonic clocks: no skew.
                    found.add(new Excess(
                            a,
                            until,
                            s.sessionEndedSeen,
                            "it was tied to its replica's session, found ended",
                            Clocks.MEASUREMENT_MILLIS));
                }
                long expiresAt = expiresAtAfter(s, a.heardAt());
                if (expiresAt > 0) {
                    // A replica computes a validity from expiresAt with its own clock, and expiresAt was
                    // last written by this answer's replica or a later renewal's: the lowest of their
                    // clocks puts the end latest in true time.
                    found.add(new Excess(
                            a,
                            until,
                            expiresAt - lowest,
                            "ZooKeeper held its expiresAt at " + expiresAt + " after the answer (written by a"
                                    + " clock at " + (lowest > 0 ? "+" : "") + lowest + " ms at the lowest)",
                            Clocks.MEASUREMENT_MILLIS));
                }
            }
            long next = Long.MAX_VALUE;
            long nextToken = 0;
            for (long[] g : grantsByKey.getOrDefault(a.key(), List.of())) {
                if (g[0] > token && g[1] < next) {
                    next = g[1];
                    nextToken = g[0];
                }
            }
            if (nextToken > 0) {
                found.add(new Excess(
                        a,
                        until,
                        next,
                        "the next holder (token " + nextToken + ") was granted",
                        clocks.allowanceBelow(lowest, Math.min(a.sentAt(), next), Math.max(a.heardAt(), next))));
            }
            for (Excess e : found) {
                if (e.millis() > e.allowance()) {
                    worst.merge(token, e, (x, y) -> x.millis() - x.allowance() >= y.millis() - y.allowance() ? x : y);
                }
            }
        }
        return List.copyOf(worst.values());
    }

    /**
     * The lowest {@code expiresAt} ZooKeeper held for the entry at the reads made after {@code heard}
     * (0 if none was): a renewal or confirmation never shortens a lease, so the first such read is
     * the answer's, and a later lower one would be a lease cut short. The observer reads after a
     * {@code sync}, so a read made after the answer was heard sees the write the answer rests on.
     */
    static long expiresAtAfter(QueueObserver.Seen s, long heard) {
        long min = 0;
        for (QueueObserver.State st : s.states) {
            if (st.lastAt() >= heard && st.expiresAt() > 0 && (min == 0 || st.expiresAt() < min)) {
                min = st.expiresAt();
            }
        }
        return min;
    }
}

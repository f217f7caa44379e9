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
 * <li>its {@code expiresAt} as ZooKeeper held it after the answer was heard, by the clock that
 *     wrote it: the lowest of the clocks that may have (those of the lease's 200s heard from calls
 *     still out when the answer's request was sent: its own, each later renewal's, the other copy
 *     of a hedged acquire answered too; and that of every call of the lease whose answer was not a
 *     200 heard: a hedged copy cancelled once the other was answered, a lost answer), the one that
 *     puts the end latest in true time;
 * <li>the next holder's grant: the first 200 heard, or the first confirmed head seen, with a higher
 *     token on the key.
 * </ul>
 *
 * The answered validity is cut at the caller's release (sent before the lease is released) and at
 * an eviction (a forced release ends a lease on purpose). A validity that outlasts the real end by
 * more than the clock skew allows ({@link ExpiryWriters#allowance}) is a finding, one per lease: the
 * largest excess.
 */
final class LeaseEnds {

    /**
     * One answer whose validity outlasted its lease's real end.
     *
     * @param trail every call of the lease's owner and every read of its entry, so that a finding
     *              in a log (a CI run whose files are gone) can be judged from its line alone
     */
    record Excess(
            AnsweredLeases.Answer answer, long validUntil, long end, String endedBy, long allowance, String trail) {

        Excess(AnsweredLeases.Answer answer, long validUntil, long end, String endedBy, long allowance) {
            this(answer, validUntil, end, endedBy, allowance, "");
        }

        long millis() {
            return validUntil - end;
        }
    }

    private LeaseEnds() {}

    static List<Excess> of(
            List<AnsweredLeases.Answer> answers,
            List<ServiceLog.Call> calls,
            Map<Long, Long> releasesSent,
            Map<Long, Long> evictions,
            Collection<QueueObserver.Seen> entries,
            ExpiryWriters writers) {
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
        Map<Long, Excess> worst = new HashMap<>();
        for (AnsweredLeases.Answer a : answers) {
            long token = a.token();
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
                    long allowance = writers.allowance(
                            a, removed, Math.min(a.sentAt(), removed), Math.max(a.heardAt(), removed));
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
                QueueObserver.State held = heldAfter(s, a.heardAt());
                if (held != null) {
                    // A replica computes a validity from expiresAt with its own clock, and expiresAt was
                    // last written by this answer's replica, a later renewal's, or another call of the
                    // lease out meanwhile (the hedged copy of this very acquire, which may confirm the
                    // entry the other copy answered unconfirmed, whether its 200 was heard or not): the
                    // lowest of their clocks puts the end latest in true time.
                    long expiresAt = held.expiresAt();
                    long lowest = writers.lowest(a, held.at());
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
                        writers.allowance(a, next, Math.min(a.sentAt(), next), Math.max(a.heardAt(), next))));
            }
            for (Excess e : found) {
                if (e.millis() > e.allowance()) {
                    worst.merge(token, e, (x, y) -> x.millis() - x.allowance() >= y.millis() - y.allowance() ? x : y);
                }
            }
        }
        return worst.values().stream()
                .map(e -> new Excess(
                        e.answer(),
                        e.validUntil(),
                        e.end(),
                        e.endedBy(),
                        e.allowance(),
                        trail(e.answer().owner(), calls, seen.get(e.answer().token()))))
                .toList();
    }

    /** The owner's calls (sent, heard, replica, answer) and the entry's reads (from, to, expiresAt), in one line. */
    private static String trail(String owner, List<ServiceLog.Call> calls, QueueObserver.Seen entry) {
        StringBuilder b = new StringBuilder("calls:");
        for (ServiceLog.Call c : calls) {
            if (c.owner().equals(owner)) {
                b.append(' ')
                        .append(c.op())
                        .append('@')
                        .append(c.replica())
                        .append(c.hedge() ? "(hedged)" : "")
                        .append(" sent ")
                        .append(c.sentAt())
                        .append(" done ")
                        .append(c.doneAt())
                        .append(' ')
                        .append(c.status())
                        .append(c.code() == null ? "" : " " + c.code())
                        .append(c.status() == 200 ? " expiresAt " + c.expiresAt() + " validFor " + c.validFor() : "")
                        .append(';');
            }
        }
        b.append(" reads:");
        if (entry != null) {
            for (QueueObserver.State st : entry.states) {
                b.append(' ')
                        .append(st.at())
                        .append('-')
                        .append(st.lastAt())
                        .append(st.confirmed() ? " confirmed " : " unconfirmed ")
                        .append(st.expiresAt())
                        .append(';');
            }
        }
        return b.toString();
    }

    /**
     * The read that showed the lowest {@code expiresAt} ZooKeeper held for the entry at the reads made
     * after {@code heard} (null if none did; its first read bounds when that expiry was written): a renewal or confirmation never shortens a lease, so the first such read is
     * the answer's, and a later lower one would be a lease cut short. The observer reads after a
     * {@code sync}, so a read made after the answer was heard sees the write the answer rests on.
     */
    static QueueObserver.State heldAfter(QueueObserver.Seen s, long heard) {
        QueueObserver.State min = null;
        for (QueueObserver.State st : s.states) {
            if (st.lastAt() >= heard && st.expiresAt() > 0 && (min == null || st.expiresAt() < min.expiresAt())) {
                min = st;
            }
        }
        return min;
    }
}

package io.zkfence.campaigns.service;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What the service answered valid, lease by lease, as the callers measured it (docs/server.md,
 * {@code validForMillis}): an acquire's 200 makes its lease valid from the moment the caller heard
 * it until the call's send time plus {@code validForMillis}; a renewal's 200 extends it to that
 * call's send time plus its {@code validForMillis}; the caller's release ends it when sent (the
 * caller stops using it before it sends the release); a forced release ends it on purpose at the
 * eviction. Times are the callers' logged clocks: one machine's clock, which the campaign, the
 * workers and ZooKeeper share (only the replicas run skewed).
 */
final class AnsweredLeases {

    /**
     * One 200 that made a lease valid.
     *
     * @param op         {@code acquire} or {@code renew}
     * @param replica    the replica that answered it
     * @param validUntil the call's send time plus its {@code validForMillis}
     * @param arrival    when the request arrived by the answering replica's clock: the answer's
     *                   {@code expiresAt} less its {@code validForMillis} ({@link #UNKNOWN} for an
     *                   answer without {@code validForMillis}); it tells which clock answered when
     *                   the replica was restarted with another while the call was out
     */
    record Answer(
            String key,
            long token,
            String owner,
            String op,
            String replica,
            long sentAt,
            long heardAt,
            long validFor,
            long validUntil,
            long arrival) {

        /** {@link #arrival} of an answer that did not say it. */
        static final long UNKNOWN = Long.MIN_VALUE;
    }

    /**
     * A stretch during which one lease was answered valid to its caller without a break.
     *
     * @param endBy     the answer whose validity is the stretch's furthest (its replica's clock set it), even
     *                  when the release or an eviction cut the stretch shorter
     * @param endedHow  {@code validity}, {@code release} (the caller sent its release) or {@code eviction}
     */
    record Segment(String key, long token, String owner, long from, long to, Answer endBy, String endedHow) {}

    private AnsweredLeases() {}

    /**
     * Every 200 that made a lease valid. A renewal names its lease ({@link ServiceLog.Call#lease()});
     * a line written before renewals did is taken for the owner's only granted lease. An answer
     * without {@code validForMillis} (the protocol before it) counts its request's TTL.
     */
    static List<Answer> answers(ServiceLog.Logs logs) {
        Map<String, Set<Long>> grantedTo = new HashMap<>();
        for (ServiceLog.Call c : logs.calls()) {
            if (c.granted()) {
                grantedTo.computeIfAbsent(c.owner(), o -> new TreeSet<>()).add(c.fencingToken());
            }
        }
        Map<String, Long> ttlOf = new HashMap<>();
        logs.requests().forEach(r -> ttlOf.put(r.owner(), r.ttl()));
        List<Answer> out = new ArrayList<>();
        for (ServiceLog.Call c : logs.calls()) {
            if (c.status() != 200 || !("acquire".equals(c.op()) || "renew".equals(c.op()))) {
                continue;
            }
            long token = "acquire".equals(c.op()) ? c.fencingToken() : leaseOf(c, grantedTo);
            long validFor = c.validFor() >= 0 ? c.validFor() : ttlOf.getOrDefault(c.owner(), -1L);
            if (token <= 0 || validFor < 0) {
                continue;
            }
            out.add(new Answer(
                    c.key(),
                    token,
                    c.owner(),
                    c.op(),
                    c.replica(),
                    c.sentAt(),
                    c.doneAt(),
                    validFor,
                    c.sentAt() + validFor,
                    c.validFor() >= 0 ? c.expiresAt() - c.validFor() : Answer.UNKNOWN));
        }
        return out;
    }

    /** The lease a renew or release was for: the one it names, else the owner's only grant (0 if unknown). */
    static long leaseOf(ServiceLog.Call c, Map<String, Set<Long>> grantedTo) {
        if (c.lease() > 0) {
            return c.lease();
        }
        Set<Long> tokens = grantedTo.getOrDefault(c.owner(), Set.of());
        return tokens.size() == 1 ? tokens.iterator().next() : 0;
    }

    /**
     * When each lease's caller first sent its release, by its log or, at the latest, by ZooKeeper:
     * an entry removed with a {@code RELEASED} record was released with its lockToken, which only
     * its holder has, so the holder had sent that release by the record's time. (A worker killed
     * with its release in flight never logs it: the release still lands, through a held proxy
     * maybe seconds later.) Token → time.
     */
    static Map<Long, Long> releasesSent(ServiceLog.Logs logs, Collection<QueueObserver.Seen> entries) {
        Map<Long, Long> out = releasesSent(logs);
        for (QueueObserver.Seen s : entries) {
            if (s.removedAt > 0 && "RELEASED".equals(s.removedAs)) {
                out.merge(s.fencingToken, s.removedAt, Math::min);
            }
        }
        return out;
    }

    /**
     * When each lease's caller first sent its release, by its log: token → time. A release call's
     * line is written once its answer came, so a worker killed with its release in flight never
     * writes it; the hold's line, written just before the release is sent (ServiceWorker.hold,
     * faults_worker.py), says when the caller stopped using the lease and sent it. A hold that ended
     * at its {@code deadline} is logged with the deadline's time, before the release was sent, so only
     * the other ends count from the hold.
     */
    static Map<Long, Long> releasesSent(ServiceLog.Logs logs) {
        Map<String, Set<Long>> grantedTo = new HashMap<>();
        for (ServiceLog.Call c : logs.calls()) {
            if (c.granted()) {
                grantedTo.computeIfAbsent(c.owner(), o -> new TreeSet<>()).add(c.fencingToken());
            }
        }
        Map<Long, Long> out = new HashMap<>();
        for (ServiceLog.Call c : logs.calls()) {
            if ("release".equals(c.op())) {
                long token = leaseOf(c, grantedTo);
                if (token > 0) {
                    out.merge(token, c.sentAt(), Math::min);
                }
            }
        }
        for (ServiceLog.Hold h : logs.holds()) {
            if (h.fencingToken() > 0 && !"deadline".equals(h.end())) {
                out.merge(h.fencingToken(), h.toAt(), Math::min);
            }
        }
        return out;
    }

    /**
     * The stretches each lease was answered valid: its answers' intervals, from when each was
     * heard to its validity's end, joined where they touch, cut at the caller's release and at an
     * eviction. An answer heard after its validity had ended adds nothing.
     *
     * @param evictions fencing token → when a forced release evicted it
     */
    static List<Segment> segments(List<Answer> answers, Map<Long, Long> releasesSent, Map<Long, Long> evictions) {
        Map<Long, List<Answer>> byToken = answers.stream().collect(Collectors.groupingBy(Answer::token));
        List<Segment> out = new ArrayList<>();
        for (List<Answer> list : byToken.values()) {
            list.sort(Comparator.comparingLong(Answer::heardAt));
            long token = list.get(0).token();
            long cut = Math.min(
                    releasesSent.getOrDefault(token, Long.MAX_VALUE), evictions.getOrDefault(token, Long.MAX_VALUE));
            String cutHow =
                    evictions.getOrDefault(token, Long.MAX_VALUE) <= releasesSent.getOrDefault(token, Long.MAX_VALUE)
                            ? "eviction"
                            : "release";
            Answer open = null;
            long from = 0;
            long to = 0;
            for (Answer a : list) {
                if (a.validUntil() <= a.heardAt()) {
                    continue;
                }
                if (open != null && a.heardAt() <= to) {
                    if (a.validUntil() > to) {
                        to = a.validUntil();
                        open = a;
                    }
                    continue;
                }
                if (open != null) {
                    add(out, open, from, to, cut, cutHow);
                }
                open = a;
                from = a.heardAt();
                to = a.validUntil();
            }
            if (open != null) {
                add(out, open, from, to, cut, cutHow);
            }
        }
        out.sort(Comparator.comparingLong(Segment::from));
        return out;
    }

    private static void add(List<Segment> out, Answer endBy, long from, long to, long cut, String cutHow) {
        if (from >= cut) {
            return;
        }
        boolean cutShort = cut < to;
        out.add(new Segment(
                endBy.key(),
                endBy.token(),
                endBy.owner(),
                from,
                cutShort ? cut : to,
                endBy,
                cutShort ? cutHow : "validity"));
    }
}

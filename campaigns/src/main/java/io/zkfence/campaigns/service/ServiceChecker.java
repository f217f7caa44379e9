package io.zkfence.campaigns.service;

import io.zkfence.campaigns.Attempt;
import io.zkfence.campaigns.Checker;
import io.zkfence.campaigns.FaultEvent;
import io.zkfence.campaigns.Recovery;
import io.zkfence.campaigns.ResourceTables;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The lock service campaign's judge. PostgreSQL first, as in the library's campaign ({@link
 * Checker}: token order per resource, no lost or doubled update, the workers' logs reconciled),
 * then the service's promises, each finding classified under the promise it breaks (the four of
 * issue 29), so that a run against a fixed service shows each gone:
 *
 * <ol>
 * <li>{@link Promise#LIVE_GRANT}: an acquire answered 200 with a lease that had already ended
 *     ({@code validForMillis} ≤ 0, or without it an {@code expiresAt} before the request was sent,
 *     allowing for any replica's clock skew at the time);
 * <li>{@link Promise#ONE_ANSWER}: one requestId answered with two different grants, or with a grant
 *     and a 409 {@code LOCK_ALREADY_HELD};
 * <li>{@link Promise#FINISHED_STAYS_FINISHED}: a grant for a request after it had finished (its
 *     lease released or ended, or its caller answered with a refusal);
 * <li>{@link Promise#DEAD_WAITER}: a waiting entry whose caller is gone (a caller planted on a
 *     replica that was then killed, or a worker's request that had ended) at the head of its queue,
 *     others waiting behind it, for longer than a replica's session timeout plus 5 s, counted from
 *     the last ZooKeeper leader change in that stretch if there was one (a new leader starts every
 *     session's timeout again: the blocks within that bound are listed as explained).
 * </ol>
 *
 * <p>And: every lease the service granted (seen in ZooKeeper, confirmed at the head of its queue, or in an answer) is one some
 * worker heard of; the others are orphan leases, each with its cause. Leases of a worker killed
 * while its acquire was out are counted apart (nobody can hear of those). Overlaps: two workers
 * believing they held one key at once, each shown fenced at PostgreSQL. Liveness per fault kind,
 * per worker and per key. Entries left once everyone stopped.
 */
final class ServiceChecker {

    /** How long a dead waiter may block its key: a replica's session timeout and 5 s of slack. */
    static final long DEAD_WAITER_LIMIT_MILLIS = Replica.SESSION.toMillis() + 5_000;

    /** The promises of docs/server.md that issue 29 found broken, in its order. */
    enum Promise {
        LIVE_GRANT("1. A 200 is a live lease"),
        ONE_ANSWER("2. One requestId, one answer"),
        FINISHED_STAYS_FINISHED("3. A finished request never grants again"),
        DEAD_WAITER("4. A dead waiter (or an expired lease) does not block the key");

        final String title;

        Promise(String title) {
            this.title = title;
        }
    }

    /** One broken promise, with its evidence in one line; {@code owner} is the request's owner id. */
    record Finding(Promise promise, long at, String key, String owner, String evidence) {}

    /**
     * A lease the service granted that no worker heard of.
     *
     * @param cause {@code finished request granted again} (promise 3), {@code second answer} (promise 2),
     *              {@code dead waiter granted} (promise 4), {@code abandoned} (its caller gave up without a
     *              final answer), {@code stopped} (its worker was stopping), {@code killed worker} (its worker
     *              was killed with the acquire out), {@code granted as its replica was killed} (a planted waiter
     *              granted in the instant its replica died) - those two break no promise - or {@code unknown}
     */
    record Orphan(long fencingToken, String key, String owner, long firstSeen, String cause) {

        boolean counts() {
            return !KILLED_WORKER.equals(cause)
                    && !GRANTED_AS_REPLICA_DIED.equals(cause)
                    && !ANSWER_LOST_LEASE_ENDED.equals(cause)
                    && !ENDED_BEFORE_ANSWERED.equals(cause);
        }
    }

    static final String KILLED_WORKER = "killed worker";

    /** A planted waiter granted just as its replica was killed: the answer died with the replica. */
    static final String GRANTED_AS_REPLICA_DIED = "granted as its replica was killed";

    /**
     * A grant whose 200 never reached its worker (a dropped or held answer, a timed-out call) and
     * whose lease ended before the worker's retry, which the service answered 409
     * {@code REQUEST_FINISHED}: one request, answered consistently; its worker never gave up.
     */
    static final String ANSWER_LOST_LEASE_ENDED = "answer lost, lease ended before the retry";

    /**
     * A lease granted at its creation whose replica stalled (paused, or ZooKeeper slow) until the
     * lease had ended: the replica answered 503 instead of a dead grant and removed the entry, so
     * the client's retry, as the 503 advises, was granted anew. The grant nobody heard of held its
     * key until its expiry and was never answered.
     */
    static final String ENDED_BEFORE_ANSWERED = "lease ended before its replica could answer (503), the retry granted";

    /** Everything the campaign recorded. */
    record Input(
            ServiceLog.Logs logs,
            ResourceTables.Contents db,
            Collection<QueueObserver.Seen> entries,
            List<QueueObserver.Entry> leftover,
            List<FaultEvent> events,
            List<ServiceFaults.Skew> skews,
            List<String> workers,
            int locks,
            long lastFaultEnd) {}

    /**
     * What the checks found. {@code explained} lists what looked like a broken promise and is the
     * documented cost of a fault instead (a lease ended early by a skewed clock; a dead waiter kept
     * by ZooKeeper's leader changes), each line saying which.
     */
    record Findings(
            Checker.Result pg,
            List<Finding> findings,
            List<Orphan> orphans,
            List<Overlaps.Overlap> overlaps,
            List<Recovery.Kind> recovery,
            List<Recovery.Kind> keyRecovery,
            List<QueueObserver.Entry> leftover,
            int grantsSeen,
            int grantsHeard,
            List<String> clocks,
            List<String> explained) {

        long count(Promise p) {
            return findings.stream().filter(f -> f.promise() == p).count();
        }

        List<Orphan> countedOrphans() {
            return orphans.stream().filter(Orphan::counts).toList();
        }

        /** True when nothing is broken: what a run against a service that keeps its promises must show. */
        boolean clean() {
            return pg.violations().isEmpty()
                    && pg.stalled().isEmpty()
                    && findings.isEmpty()
                    && countedOrphans().isEmpty()
                    && leftover.isEmpty()
                    && recovery.stream().allMatch(k -> k.notRecovered() == 0);
        }
    }

    private ServiceChecker() {}

    static Findings check(Input in) {
        ServiceLog.Logs logs = in.logs();
        List<Attempt> attempts = logs.attempts();
        Checker.Result pg = Checker.check(
                in.db().history(), in.db().counters(), attempts, Set.copyOf(in.workers()), in.lastFaultEnd());
        List<Finding> findings = new ArrayList<>();
        Map<String, ServiceLog.RequestEnd> ends = new HashMap<>();
        logs.requests().forEach(r -> ends.put(r.owner(), r));
        Map<String, List<ServiceLog.Hold>> holds =
                logs.holds().stream().collect(Collectors.groupingBy(ServiceLog.Hold::owner));
        Set<Long> deadGrants = new HashSet<>();
        findings.addAll(deadLeases(logs.calls(), in.skews(), deadGrants));
        List<Finding> answeredTwice = twoAnswers(logs.calls());
        findings.addAll(answeredTwice);
        Set<String> flagged = answeredTwice.stream().map(Finding::owner).collect(Collectors.toSet());
        Set<Long> heard = logs.calls().stream()
                .filter(ServiceLog.Call::granted)
                .map(ServiceLog.Call::fencingToken)
                .collect(Collectors.toSet());
        // Every lease the service granted (a confirmed head, read directly) and every 200 a worker heard.
        Map<Long, QueueObserver.Listed> granted = new LinkedHashMap<>();
        for (QueueObserver.Seen s : in.entries()) {
            if (s.grantedSeen > 0) {
                granted.put(
                        s.fencingToken,
                        new QueueObserver.Listed(
                                ServiceCampaign.keyOfLock(s.lock), s.owner, s.fencingToken, s.grantedSeen));
            }
        }
        for (ServiceLog.Call c : logs.calls()) {
            if (c.granted()) {
                granted.merge(
                        c.fencingToken(),
                        new QueueObserver.Listed(c.key(), c.owner(), c.fencingToken(), c.doneAt()),
                        (a, b) -> a.firstSeen() <= b.firstSeen() ? a : b);
            }
        }
        Map<Long, Long> expiresAtOf = new HashMap<>();
        for (QueueObserver.Seen s : in.entries()) {
            if (s.expiresAt > 0) {
                expiresAtOf.put(s.fencingToken, s.expiresAt);
            }
        }
        List<Orphan> orphans = new ArrayList<>();
        List<String> explained = new ArrayList<>();
        for (QueueObserver.Listed g : granted.values()) {
            ServiceLog.RequestEnd end = ends.get(g.owner());
            long finishedAt = finishedAt(end, holds.get(g.owner()));
            boolean second = end != null && "granted".equals(end.result()) && end.fencingToken() != g.fencingToken();
            boolean afterRefusal = end != null
                    && !"granted".equals(end.result())
                    && !"abandoned".equals(end.result())
                    && !"stopped".equals(end.result());
            if (heard.contains(g.fencingToken())) {
                if ((second || afterRefusal) && !flagged.contains(g.owner())) {
                    // Heard of, but not as the request's answer, and not already one of two answers above.
                    String early = endedEarlyBySkew(g, logs.calls(), in.skews());
                    if (early != null) {
                        explained.add(early);
                    } else {
                        findings.add(secondGrant(g, end, finishedAt));
                    }
                }
                continue;
            }
            String cause = endedBeforeAnswered(g, logs.calls(), expiresAtOf.getOrDefault(g.fencingToken(), 0L))
                    ? ENDED_BEFORE_ANSWERED
                    : orphanCause(g, end, finishedAt, logs.exited(), second || afterRefusal);
            orphans.add(new Orphan(g.fencingToken(), g.key(), g.owner(), g.firstSeen(), cause));
            switch (cause) {
                case "finished request granted again" ->
                    findings.add(new Finding(
                            Promise.FINISHED_STAYS_FINISHED,
                            g.firstSeen(),
                            g.key(),
                            g.owner(),
                            "request " + g.owner() + " (" + end.result() + " at "
                                    + Instant.ofEpochMilli(finishedAt)
                                    + ") granted again with token "
                                    + g.fencingToken() + ", first seen " + (g.firstSeen() - finishedAt)
                                    + " ms after it finished; no worker holds it"));
                case "second answer" ->
                    findings.add(new Finding(
                            Promise.ONE_ANSWER,
                            g.firstSeen(),
                            g.key(),
                            g.owner(),
                            "request " + g.owner() + " got " + end.result()
                                    + (end.fencingToken() > 0 ? " (token " + end.fencingToken() + ")" : "")
                                    + " and was also granted token " + g.fencingToken()
                                    + ", which no worker heard of"));
                case "dead waiter granted" ->
                    findings.add(new Finding(
                            Promise.DEAD_WAITER,
                            g.firstSeen(),
                            g.key(),
                            g.owner(),
                            "the dead waiter " + g.owner() + " was granted token " + g.fencingToken()
                                    + ": a lease nobody holds"));
                default -> {
                    // counted as an orphan with its cause
                }
            }
        }
        findings.addAll(deadWaiters(in.entries(), ends, holds, leaderChanges(in.events()), explained));
        findings.sort(Comparator.comparingLong(Finding::at));
        List<Overlaps.Overlap> overlaps = Overlaps.of(logs.holds(), logs.writes(), deadGrants, in.skews());
        Set<String> resources =
                IntStream.range(0, in.locks()).mapToObj(i -> "res-" + i).collect(Collectors.toCollection(TreeSet::new));
        return new Findings(
                pg,
                findings,
                orphans,
                overlaps,
                Recovery.of(in.events(), attempts, Set.copyOf(in.workers())),
                Recovery.ofResources(in.events(), attempts, resources),
                in.leftover(),
                granted.size(),
                heard.size(),
                Clocks.measured(logs, in.skews()),
                explained);
    }

    /**
     * Whether {@code g}, a grant nobody heard of, is the lease of an acquire that its replica
     * answered 503 after the lease had ended: granted at creation while the call was out, ended
     * (its {@code expiresAt}, 0 if unknown) before the 503.
     */
    private static boolean endedBeforeAnswered(QueueObserver.Listed g, List<ServiceLog.Call> calls, long expiresAt) {
        return expiresAt > 0
                && calls.stream()
                        .anyMatch(c -> c.owner().equals(g.owner())
                                && "acquire".equals(c.op())
                                && c.status() == 503
                                && c.sentAt() <= g.firstSeen()
                                && g.firstSeen() <= c.doneAt()
                                && expiresAt <= c.doneAt());
    }

    /** When each ZooKeeper leader was killed, in order. */
    private static List<Long> leaderChanges(List<FaultEvent> events) {
        return events.stream()
                .filter(e -> "zk-leader-kill".equals(e.kind()))
                .map(FaultEvent::startMillis)
                .sorted()
                .toList();
    }

    /**
     * A grant heard beside a 409 {@code REQUEST_FINISHED} for the same request, where the replica that
     * answered the 409 ran with a clock at or past the lease's {@code expiresAt} when it answered: by
     * its clock the lease had ended, so it removed it and said the request finished. That is the cost
     * docs/server.md states for skewed replica clocks (a lease removed up to the skew early), not a
     * second answer; the line saying so, or null if the 409 cannot be explained that way.
     */
    private static String endedEarlyBySkew(
            QueueObserver.Listed g, List<ServiceLog.Call> calls, List<ServiceFaults.Skew> skews) {
        ServiceLog.Call grant = calls.stream()
                .filter(c -> c.granted() && c.fencingToken() == g.fencingToken())
                .findFirst()
                .orElse(null);
        if (grant == null) {
            return null;
        }
        for (ServiceLog.Call c : calls) {
            if (!c.owner().equals(g.owner()) || !"REQUEST_FINISHED".equals(c.code())) {
                continue;
            }
            long offset = Clocks.offsetOf(skews, c.replica(), c.sentAt());
            if (offset > 0 && c.doneAt() + offset >= grant.expiresAt()) {
                return c.replica() + " (clock +" + offset + " ms) answered request " + g.owner()
                        + " 409 REQUEST_FINISHED: by its clock the lease " + grant.replica()
                        + " had just granted (token " + g.fencingToken() + ", expiresAt "
                        + Instant.ofEpochMilli(grant.expiresAt()) + ") had ended, and it removed it"
                        + " (a lease ended early by a skewed clock)";
            }
        }
        return null;
    }

    /** When a request finished: its lease's end as its worker logged it, else its end line (refused, abandoned). */
    private static long finishedAt(ServiceLog.RequestEnd end, List<ServiceLog.Hold> holds) {
        if (holds != null && !holds.isEmpty()) {
            return holds.stream().mapToLong(ServiceLog.Hold::toAt).max().orElseThrow();
        }
        return end == null ? Long.MAX_VALUE : end.endAt();
    }

    private static Finding secondGrant(QueueObserver.Listed g, ServiceLog.RequestEnd end, long finishedAt) {
        boolean after = g.firstSeen() > finishedAt;
        return new Finding(
                after ? Promise.FINISHED_STAYS_FINISHED : Promise.ONE_ANSWER,
                g.firstSeen(),
                g.key(),
                g.owner(),
                "request " + g.owner() + " ended " + end.result()
                        + (end.fencingToken() > 0 ? " with token " + end.fencingToken() : "")
                        + " and its worker was also answered a grant with token " + g.fencingToken()
                        + (after ? ", " + (g.firstSeen() - finishedAt) + " ms after it finished" : "")
                        + " (released at once)");
    }

    private static String orphanCause(
            QueueObserver.Listed g, ServiceLog.RequestEnd end, long finishedAt, Set<String> exited, boolean answered) {
        if (g.owner().startsWith("doomed-")) {
            // Its replica was killed at the request's end: only a grant seen clearly after that is a dead waiter's.
            return end != null && g.firstSeen() > end.endAt() + QueueObserver.PERIOD.toMillis() * 2
                    ? "dead waiter granted"
                    : GRANTED_AS_REPLICA_DIED;
        }
        String[] parts = g.owner().split("\\.", 4); // worker.pid.start.n
        String incarnation = parts.length == 4 ? parts[0] + "." + parts[1] + "." + parts[2] : null;
        if (end == null) {
            return incarnation != null && !exited.contains(incarnation) ? KILLED_WORKER : "unknown";
        }
        if (answered && "finished".equals(end.result()) && g.firstSeen() <= end.endAt()) {
            return ANSWER_LOST_LEASE_ENDED;
        }
        if (answered) {
            return g.firstSeen() > finishedAt ? "finished request granted again" : "second answer";
        }
        return switch (end.result()) {
            case "abandoned" -> "abandoned";
            case "stopped" -> "stopped";
            default -> "unknown";
        };
    }

    /** Promise 1: a 200 whose lease had ended before the request was even sent. */
    private static List<Finding> deadLeases(
            List<ServiceLog.Call> calls, List<ServiceFaults.Skew> skews, Set<Long> dead) {
        List<Finding> out = new ArrayList<>();
        for (ServiceLog.Call c : calls) {
            if (!c.granted()) {
                continue;
            }
            boolean ended;
            String how;
            if (c.validFor() >= 0) {
                ended = c.validFor() == 0;
                how = "validForMillis " + c.validFor();
            } else {
                // Judged by the answering replica's clock: dead when expiresAt had passed on it when the request was
                // sent (it answered later still). Inside a skew window the replica may still have run unskewed (the
                // window spans its restarts), so only a skew that makes the verdict less likely is applied.
                long offset = Math.min(0, Clocks.offsetOf(skews, c.replica(), c.sentAt()));
                ended = c.expiresAt() <= c.sentAt() + offset;
                how = "expiresAt " + (c.sentAt() - c.expiresAt()) + " ms before the request was sent"
                        + (offset != 0
                                ? " (by its clock, " + offset + " ms off, " + (c.sentAt() + offset - c.expiresAt())
                                        + " ms)"
                                : "");
            }
            if (ended) {
                dead.add(c.fencingToken());
                out.add(new Finding(
                        Promise.LIVE_GRANT,
                        c.doneAt(),
                        c.key(),
                        c.owner(),
                        c.replica() + " answered 200 to " + c.owner() + " with token " + c.fencingToken() + ", "
                                + how));
            }
        }
        return out;
    }

    /** Promise 2, from the answers the workers got: two grants, or a grant and a 409 LOCK_ALREADY_HELD, for one request. */
    private static List<Finding> twoAnswers(List<ServiceLog.Call> calls) {
        Map<String, List<ServiceLog.Call>> byRequest = calls.stream()
                .filter(c -> "acquire".equals(c.op()) && c.status() != 0)
                .collect(Collectors.groupingBy(
                        c -> c.owner() + "|" + c.request(), LinkedHashMap::new, Collectors.toList()));
        List<Finding> out = new ArrayList<>();
        for (List<ServiceLog.Call> answers : byRequest.values()) {
            Set<Long> tokens = answers.stream()
                    .filter(ServiceLog.Call::granted)
                    .map(ServiceLog.Call::fencingToken)
                    .collect(Collectors.toCollection(TreeSet::new));
            List<ServiceLog.Call> held = answers.stream()
                    .filter(c -> c.status() == 409 && "LOCK_ALREADY_HELD".equals(c.code()))
                    .toList();
            if (tokens.size() > 1 || (!tokens.isEmpty() && !held.isEmpty())) {
                ServiceLog.Call first = answers.get(0);
                boolean self = held.stream().anyMatch(c -> first.owner().equals(c.currentOwner()));
                out.add(new Finding(
                        Promise.ONE_ANSWER,
                        answers.stream()
                                .mapToLong(ServiceLog.Call::doneAt)
                                .max()
                                .orElseThrow(),
                        first.key(),
                        first.owner(),
                        "request " + first.owner() + " was answered "
                                + answers.stream()
                                        .map(c -> c.replica() + ": "
                                                + (c.granted()
                                                        ? "200 token " + c.fencingToken()
                                                        : c.status() + " " + c.code()
                                                                + (c.currentOwner() != null
                                                                        ? " (currentOwner "
                                                                                + (first.owner()
                                                                                                .equals(
                                                                                                        c
                                                                                                                .currentOwner())
                                                                                        ? "itself"
                                                                                        : c.currentOwner())
                                                                                + ")"
                                                                        : "")))
                                        .collect(Collectors.joining(", "))
                                + (self ? " - a 409 naming the caller itself" : "")));
            }
        }
        return out;
    }

    /**
     * Promise 4: a dead entry at the head of its queue, others waiting behind it, past the limit: a
     * waiting entry whose caller is gone, or a lease well past its expiry that nobody removed.
     */
    private static List<Finding> deadWaiters(
            Collection<QueueObserver.Seen> entries,
            Map<String, ServiceLog.RequestEnd> ends,
            Map<String, List<ServiceLog.Hold>> holds,
            List<Long> leaderChanges,
            List<String> explained) {
        List<Finding> out = new ArrayList<>();
        for (QueueObserver.Seen s : entries) {
            if (s.longestBlockedMillis() <= DEAD_WAITER_LIMIT_MILLIS) {
                continue;
            }
            ServiceLog.RequestEnd end = ends.get(s.owner);
            boolean doomed = s.owner.startsWith("doomed-");
            boolean expired = "expired".equals(s.blockedAs);
            boolean ended = end != null && end.endAt() < s.longestBlockedFrom && !"granted".equals(end.result());
            if (doomed || ended || expired) {
                String whose = doomed
                        ? "the waiting entry of " + s.owner + " (its replica was killed while it waited)"
                        : expired
                                ? "the lease of " + s.owner + " (token " + s.fencingToken + ", expiresAt "
                                        + Instant.ofEpochMilli(s.expiresAt) + ", "
                                        + (end == null
                                                ? "its worker killed before its request ended"
                                                : "its request " + end.result())
                                        + ")"
                                : "the waiting entry of " + s.owner + " (" + end.result() + " at "
                                        + Instant.ofEpochMilli(end.endAt()) + ")";
                // A new ZooKeeper leader starts every session's timeout again (a crashed replica's
                // session, and with it its waiters, lives on), and the replicas that would remove the
                // entry wait for it: the limit counts from the last leader change in the stretch.
                long leaderChange = leaderChanges.stream()
                        .filter(t -> t > s.longestBlockedFrom && t <= s.longestBlockedTo)
                        .reduce((a, b) -> b)
                        .orElse(0L);
                if (leaderChange > 0 && s.longestBlockedTo - leaderChange <= DEAD_WAITER_LIMIT_MILLIS) {
                    explained.add(ServiceCampaign.keyOfLock(s.lock) + ": " + whose + " blocked its key for "
                            + s.longestBlockedMillis() + " ms, within the limit of " + DEAD_WAITER_LIMIT_MILLIS
                            + " ms counted from ZooKeeper's last leader change in that stretch ("
                            + Instant.ofEpochMilli(leaderChange) + "), which starts every session's timeout again");
                    continue;
                }
                out.add(new Finding(
                        Promise.DEAD_WAITER,
                        s.longestBlockedFrom,
                        ServiceCampaign.keyOfLock(s.lock),
                        s.owner,
                        whose + " stood at the head of the queue" + (expired ? ", expired," : "")
                                + " with others waiting behind it for " + s.longestBlockedMillis()
                                + " ms; it was there " + (s.lastSeen - s.firstSeen) + " ms in all"));
            }
        }
        return out;
    }
}

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
 * issue 29, and the overlap the fencing token exists for), so that a run against a fixed service
 * shows each gone. The checks are strict: what a caller was answered is judged against what
 * ZooKeeper held and what other callers were answered, with the replicas' measured clock skew as
 * the only allowance ({@link Clocks}).
 *
 * <ol>
 * <li>{@link Promise#LIVE_GRANT}: a 200 whose answered validity outlasts its lease's real end in
 *     ZooKeeper (its removal, its session's end, its {@code expiresAt}, the next holder's grant) by
 *     more than the skew allows ({@link LeaseEnds}); or a 200 that says so itself
 *     ({@code validForMillis} 0, or without it an {@code expiresAt} before the request was sent);
 * <li>{@link Promise#ONE_ANSWER}: one requestId answered with two different grants, or with a grant
 *     and a 409 {@code LOCK_ALREADY_HELD};
 * <li>{@link Promise#FINISHED_STAYS_FINISHED}: a grant for a request after it had finished (its
 *     lease released or ended, or its caller answered with a refusal);
 * <li>{@link Promise#DEAD_WAITER}: a waiter that can act, blocked longer than a moment past the end
 *     of the entries ahead of it nobody uses, by the service's own rule ({@link Blocks});
 * <li>{@link Promise#NO_OVERLAP}: two leases of one key answered valid at once for longer than the
 *     skew allows ({@link Overlaps}).
 * </ol>
 *
 * <p>And: every lease the service granted (seen in ZooKeeper, confirmed at the head of its queue, or in an answer) is one some
 * worker heard of; the others are orphan leases, each with its cause. Leases of a worker killed
 * while its acquire was out are counted apart (nobody can hear of those). Liveness per fault kind,
 * per worker and per key. Entries left once everyone stopped.
 */
final class ServiceChecker {

    /** The promises of docs/server.md that issue 29 found broken, in its order, and the overlap fencing is for. */
    enum Promise {
        LIVE_GRANT("1. A 200 is a live lease: its answered validity ends before the lease does"),
        ONE_ANSWER("2. One requestId, one answer"),
        FINISHED_STAYS_FINISHED("3. A finished request never grants again"),
        DEAD_WAITER("4. A dead waiter (or an expired lease) does not block the key"),
        NO_OVERLAP("5. No two leases of one key answered valid at once");

        final String title;

        Promise(String title) {
            this.title = title;
        }
    }

    /**
     * One broken promise, with its evidence in one line; {@code owner} is the request's owner id,
     * {@code token} the lease's fencing token when one lease is at fault (0 otherwise).
     */
    record Finding(Promise promise, long at, String key, String owner, long token, String evidence) {}

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

    /**
     * Everything the campaign recorded.
     *
     * @param entries   every queue entry the observer saw, with its changes and its removal
     * @param snapshots every queue with waiters in it, at every read
     * @param polls     when each of the observer's reads succeeded
     * @param evictions leases a forced release evicted: fencing token → when
     */
    record Input(
            ServiceLog.Logs logs,
            ResourceTables.Contents db,
            Collection<QueueObserver.Seen> entries,
            List<QueueSnapshot> snapshots,
            List<Long> polls,
            Map<Long, Long> evictions,
            List<QueueObserver.Entry> leftover,
            List<FaultEvent> events,
            List<ServiceFaults.Skew> skews,
            List<String> workers,
            int locks,
            long lastFaultEnd) {}

    /**
     * What the checks found. {@code explained} lists what looked like a broken promise and is the
     * documented cost of a fault instead (a lease ended early by a skewed clock; a key blocked while
     * the entries ahead of its waiter lived by the service's rule), each line saying which.
     */
    record Findings(
            Checker.Result pg,
            List<Finding> findings,
            List<Orphan> orphans,
            List<Overlaps.Overlap> overlaps,
            List<Blocks.Block> blocks,
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
        Clocks clocks = Clocks.of(logs, in.skews());
        List<AnsweredLeases.Answer> answers = AnsweredLeases.answers(logs);
        // Who may have written each lease's expiry: promise 1 and promise 5 judge an early end alike.
        ExpiryWriters writers = new ExpiryWriters(answers, logs.calls(), clocks);
        Map<Long, Long> releasesSent = AnsweredLeases.releasesSent(logs, in.entries());
        List<AnsweredLeases.Segment> segments = AnsweredLeases.segments(answers, releasesSent, in.evictions());
        findings.addAll(deadLeases(logs.calls(), clocks));
        Set<Long> saidDead = findings.stream().map(f -> f.token()).collect(Collectors.toSet());
        for (LeaseEnds.Excess e :
                LeaseEnds.of(answers, logs.calls(), releasesSent, in.evictions(), in.entries(), writers)) {
            if (!saidDead.contains(e.answer().token())) {
                findings.add(outlived(e));
            }
        }
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
                    String early = endedEarlyBySkew(g, logs.calls(), clocks);
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
                            g.fencingToken(),
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
                            g.fencingToken(),
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
                            g.fencingToken(),
                            "the dead waiter " + g.owner() + " was granted token " + g.fencingToken()
                                    + ": a lease nobody holds"));
                default -> {
                    // counted as an orphan with its cause
                }
            }
        }
        List<Blocks.Block> blocks =
                Blocks.of(in.snapshots(), in.polls(), logs, segments, in.entries(), in.events(), clocks);
        for (Blocks.Block b : blocks) {
            if (b.finding()) {
                findings.add(new Finding(
                        Promise.DEAD_WAITER,
                        b.from(),
                        b.key(),
                        b.waiter(),
                        0,
                        "a waiter (" + b.waiter() + ") that could act was blocked for " + b.millis()
                                + " ms, " + b.unexplained() + " ms of it after the entries ahead of it had"
                                + " ended by the service's rule (limit " + Blocks.REACTION_MILLIS + " ms"
                                + (b.electing() > 0 ? "; " + b.electing() + " ms of leader election not counted" : "")
                                + "): " + String.join("; ", b.chain())));
            } else if (b.millis() > Blocks.REACTION_MILLIS) {
                explained.add(b.key() + ": a waiter (" + b.waiter() + ") was blocked for " + b.millis()
                        + " ms by entries nobody used, each living by the service's rule until the block's"
                        + " last " + (b.to() - Math.min(b.to(), Math.max(b.from(), b.chainEnd()))) + " ms: "
                        + String.join("; ", b.chain()));
            }
        }
        List<Overlaps.Overlap> overlaps = Overlaps.of(segments, logs.writes(), clocks, writers);
        for (Overlaps.Overlap o : overlaps) {
            if (o.finding()) {
                findings.add(new Finding(
                        Promise.NO_OVERLAP,
                        o.from(),
                        o.key(),
                        o.lowerOwner(),
                        o.lowerToken(),
                        "token " + o.lowerToken() + " (" + o.lowerOwner() + ") and token " + o.higherToken() + " ("
                                + o.higherOwner() + ") were answered valid at once for " + o.millis() + " ms, beyond"
                                + " the allowance of " + o.allowance() + " ms: " + o.why()));
            }
        }
        findings.sort(Comparator.comparingLong(Finding::at));
        Set<String> resources =
                IntStream.range(0, in.locks()).mapToObj(i -> "res-" + i).collect(Collectors.toCollection(TreeSet::new));
        return new Findings(
                pg,
                findings,
                orphans,
                overlaps,
                blocks,
                Recovery.of(in.events(), attempts, Set.copyOf(in.workers())),
                Recovery.ofResources(in.events(), attempts, resources),
                in.leftover(),
                granted.size(),
                heard.size(),
                clocks.lines(),
                explained);
    }

    /** Promise 1 from ZooKeeper: an answered validity that outlived its lease beyond the skew. */
    private static Finding outlived(LeaseEnds.Excess e) {
        AnsweredLeases.Answer a = e.answer();
        return new Finding(
                Promise.LIVE_GRANT,
                a.heardAt(),
                a.key(),
                a.owner(),
                a.token(),
                a.replica() + " answered " + a.owner() + "'s " + a.op() + " 200 (token " + a.token() + ") valid for "
                        + a.validFor() + " ms, until " + Instant.ofEpochMilli(e.validUntil()) + "; the lease ended "
                        + e.millis() + " ms before that, when " + e.endedBy() + " at " + Instant.ofEpochMilli(e.end())
                        + " (the clocks allow " + e.allowance() + " ms); " + e.trail());
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

    /**
     * A grant heard beside a 409 {@code REQUEST_FINISHED} for the same request, where the replica that
     * answered the 409 ran with a clock at or past the lease's {@code expiresAt} when it answered: by
     * its clock the lease had ended, so it removed it and said the request finished. That is the cost
     * docs/server.md states for skewed replica clocks (a lease removed up to the skew early), not a
     * second answer; the line saying so, or null if the 409 cannot be explained that way.
     */
    private static String endedEarlyBySkew(QueueObserver.Listed g, List<ServiceLog.Call> calls, Clocks clocks) {
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
            long offset = clocks.offsetOf(c.replica(), c.sentAt());
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
                g.fencingToken(),
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

    /**
     * Promise 1 by the answer itself: a 200 valid for nothing ({@code validForMillis} 0), or, from a
     * service without {@code validForMillis}, an {@code expiresAt} that had passed before the
     * request was even sent.
     */
    private static List<Finding> deadLeases(List<ServiceLog.Call> calls, Clocks clocks) {
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
                long offset = Math.min(0, clocks.offsetOf(c.replica(), c.sentAt()));
                ended = c.expiresAt() <= c.sentAt() + offset;
                how = "expiresAt " + (c.sentAt() - c.expiresAt()) + " ms before the request was sent"
                        + (offset != 0
                                ? " (by its clock, " + offset + " ms off, " + (c.sentAt() + offset - c.expiresAt())
                                        + " ms)"
                                : "");
            }
            if (ended) {
                out.add(new Finding(
                        Promise.LIVE_GRANT,
                        c.doneAt(),
                        c.key(),
                        c.owner(),
                        c.fencingToken(),
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
                        0,
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
}

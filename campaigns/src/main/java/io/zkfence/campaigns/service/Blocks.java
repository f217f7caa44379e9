package io.zkfence.campaigns.service;

import io.zkfence.campaigns.FaultEvent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Promise 4, a dead waiter does not block the key, judged from the queues as the observer read them
 * ({@link QueueSnapshot}) and from what the callers were doing ({@link ServiceLog}).
 *
 * <p>A key is <b>blocked</b> at a read when a waiter whose caller is waiting (its acquire is out, on
 * a replica that is neither paused, cut off, held nor killed) stands behind entries nobody is using:
 * no caller waits for them and none holds them (its answered validity, or its own record of holding,
 * does not cover that moment). Those entries are the block's <b>chain</b>. A block is explained only
 * by the chain itself: each entry of it ends, by the service's rule, at the first of
 *
 * <ul>
 * <li>its replica's session's real end, when it is tied to one (the first read that found the
 *     session's marker gone: ZooKeeper's expiry after the replica's crash or cut-off, started again
 *     by every leader change, as it really happened);
 * <li>its {@code expiresAt}: a lease's end, or an unconfirmed entry's backstop, by the clock of the
 *     replica most behind at the time ({@link Clocks}).
 * </ul>
 *
 * The key may stay blocked until the chain's last entry ended; past that, a waiter that can act
 * removes every dead entry ahead of it at once (docs/server.md, "Removals"), so a block that lasts
 * more than {@link #REACTION_MILLIS} beyond its chain's end is a finding, the time ZooKeeper spent
 * electing a leader (a leader kill until the killed server serves again) not counted. A ZooKeeper
 * leader kill explains nothing else: a session it kept alive shows as that session's later end.
 */
final class Blocks {

    /**
     * How long a dead entry may stand ahead of a waiter that can act: a watch, a read and a multi
     * take milliseconds; two observer reads (500 ms apart) and a loaded two-core machine make 5 s.
     */
    static final long REACTION_MILLIS = 5_000;

    /** The fault kinds during which a replica cannot act on its waiting calls. */
    private static final Set<String> DISRUPTING = Set.of(
            "replica-kill",
            "replica-kill-while-waiting",
            "replica-pause",
            "replica-cutoff-short",
            "replica-cutoff-long",
            "request-hold");

    /**
     * A stretch during which a key was blocked.
     *
     * @param chain        the entries that were ahead of the blocked waiter, each with how it ended
     * @param waiter       the first blocked waiter's owner
     * @param chainEnd     when the chain's last entry ended by the service's rule
     * @param electing     milliseconds of ZooKeeper leader elections after {@code chainEnd}, not counted
     * @param unexplained  how long the block lasted beyond {@code chainEnd} (elections not counted)
     */
    record Block(
            String key,
            long from,
            long to,
            List<String> chain,
            String waiter,
            long chainEnd,
            long electing,
            long unexplained) {

        long millis() {
            return to - from;
        }

        boolean finding() {
            return unexplained > REACTION_MILLIS;
        }
    }

    private record CallSpan(long from, long to, String replica) {}

    private Blocks() {}

    static List<Block> of(
            List<QueueSnapshot> snapshots,
            List<Long> polls,
            ServiceLog.Logs logs,
            List<AnsweredLeases.Segment> segments,
            Collection<QueueObserver.Seen> entries,
            List<FaultEvent> events,
            Clocks clocks) {
        Map<String, List<CallSpan>> acquiresOf = new HashMap<>();
        for (ServiceLog.Call c : logs.calls()) {
            if ("acquire".equals(c.op())) {
                acquiresOf
                        .computeIfAbsent(c.owner(), o -> new ArrayList<>())
                        .add(new CallSpan(c.sentAt(), c.doneAt(), c.replica()));
            }
        }
        Map<String, List<long[]>> holdingOf = new HashMap<>();
        for (AnsweredLeases.Segment s : segments) {
            holdingOf.computeIfAbsent(s.owner(), o -> new ArrayList<>()).add(new long[] {s.from(), s.to()});
        }
        for (ServiceLog.Hold h : logs.holds()) {
            holdingOf.computeIfAbsent(h.owner(), o -> new ArrayList<>()).add(new long[] {h.fromAt(), h.toAt()});
        }
        Map<Long, QueueObserver.Seen> seen = new HashMap<>();
        entries.forEach(s -> seen.put(s.fencingToken, s));
        // Per lock, per read: the chain of a blocked key (null: not blocked).
        Map<String, TreeMap<Long, Blocked>> byLock = new TreeMap<>();
        for (QueueSnapshot snap : snapshots) {
            Blocked b = blocked(snap, acquiresOf, holdingOf, events);
            if (b != null) {
                byLock.computeIfAbsent(snap.lock(), l -> new TreeMap<>()).put(snap.at(), b);
            }
        }
        List<Long> reads = polls.stream().sorted().toList();
        List<Block> out = new ArrayList<>();
        for (Map.Entry<String, TreeMap<Long, Blocked>> lock : byLock.entrySet()) {
            TreeMap<Long, Blocked> at = lock.getValue();
            List<Blocked> stretch = new ArrayList<>();
            for (long t : reads) {
                Blocked b = at.get(t);
                if (b != null) {
                    stretch.add(b);
                } else if (!stretch.isEmpty()) {
                    out.add(block(lock.getKey(), stretch, seen, events, clocks));
                    stretch = new ArrayList<>();
                }
            }
            if (!stretch.isEmpty()) {
                out.add(block(lock.getKey(), stretch, seen, events, clocks));
            }
        }
        out.sort((x, y) -> Long.compare(x.from(), y.from()));
        return out;
    }

    /** A blocked key at one read: the chain ahead of the first waiter that can act, and that waiter. */
    private record Blocked(long at, List<QueueSnapshot.Slot> chain, String waiter) {}

    private static Blocked blocked(
            QueueSnapshot snap,
            Map<String, List<CallSpan>> acquiresOf,
            Map<String, List<long[]>> holdingOf,
            List<FaultEvent> events) {
        long t = snap.at();
        List<QueueSnapshot.Slot> q = snap.queue();
        for (int j = 1; j < q.size(); j++) {
            String owner = q.get(j).owner();
            boolean canAct = acquiresOf.getOrDefault(owner, List.of()).stream()
                    .anyMatch(c -> c.from() <= t && t <= c.to() && !disrupted(c.replica(), t, events));
            if (!canAct) {
                continue;
            }
            List<QueueSnapshot.Slot> chain = q.subList(0, j);
            boolean inUse =
                    chain.stream().anyMatch(s -> waiting(s.owner(), t, acquiresOf) || holding(s.owner(), t, holdingOf));
            return inUse ? null : new Blocked(t, List.copyOf(chain), owner);
        }
        return null;
    }

    private static boolean waiting(String owner, long t, Map<String, List<CallSpan>> acquiresOf) {
        return acquiresOf.getOrDefault(owner, List.of()).stream().anyMatch(c -> c.from() <= t && t <= c.to());
    }

    private static boolean holding(String owner, long t, Map<String, List<long[]>> holdingOf) {
        return holdingOf.getOrDefault(owner, List.of()).stream().anyMatch(h -> h[0] <= t && t < h[1]);
    }

    private static boolean disrupted(String replica, long t, List<FaultEvent> events) {
        return events.stream()
                .anyMatch(e -> replica.equals(e.target())
                        && DISRUPTING.contains(e.kind())
                        && e.startMillis() <= t
                        && t <= e.endMillis());
    }

    private static Block block(
            String lock,
            List<Blocked> stretch,
            Map<Long, QueueObserver.Seen> seen,
            List<FaultEvent> events,
            Clocks clocks) {
        long from = stretch.getFirst().at();
        long to = stretch.getLast().at();
        // Each entry that was in the chain, as last read, and its end by the service's rule.
        Map<Long, QueueSnapshot.Slot> chain = new LinkedHashMap<>();
        Map<Long, Long> sessionGone = new HashMap<>();
        for (Blocked b : stretch) {
            for (QueueSnapshot.Slot s : b.chain()) {
                chain.put(s.fencingToken(), s);
                if (!s.confirmed() && !s.sessionLive()) {
                    sessionGone.putIfAbsent(s.fencingToken(), b.at());
                }
            }
        }
        long chainEnd = Long.MIN_VALUE;
        List<String> lines = new ArrayList<>();
        for (QueueSnapshot.Slot s : chain.values()) {
            long behind = clocks.minOffset(from, to);
            long expiry = s.expiresAt() - behind + Clocks.MEASUREMENT_MILLIS;
            long end;
            String how;
            if (s.confirmed()) {
                end = expiry;
                how = "a lease until " + s.expiresAt();
            } else {
                QueueObserver.Seen e = seen.get(s.fencingToken());
                long gone = sessionGone.getOrDefault(s.fencingToken(), Long.MAX_VALUE);
                if (e != null && e.sessionEndedSeen > 0) {
                    gone = Math.min(gone, e.sessionEndedSeen);
                }
                end = Math.min(gone, expiry);
                how = "tied to session " + s.session()
                        + (gone == Long.MAX_VALUE
                                ? ", which did not end; its backstop expiresAt " + s.expiresAt()
                                : ", found ended at " + gone);
            }
            chainEnd = Math.max(chainEnd, end);
            lines.add(s.owner() + " (token " + s.fencingToken() + ", " + how + ")");
        }
        long electing = electing(Math.max(from, chainEnd), to, events);
        long unexplained = Math.max(0, to - Math.max(from, chainEnd) - electing);
        return new Block(
                ServiceCampaign.keyOfLock(lock),
                from,
                to,
                lines,
                stretch.getFirst().waiter(),
                chainEnd,
                electing,
                unexplained);
    }

    /** Milliseconds of [from, to] during which a ZooKeeper leader had been killed and its server was not back. */
    private static long electing(long from, long to, List<FaultEvent> events) {
        long total = 0;
        long covered = from;
        List<FaultEvent> kills = events.stream()
                .filter(e -> "zk-leader-kill".equals(e.kind()) && e.endMillis() > from && e.startMillis() < to)
                .sorted((x, y) -> Long.compare(x.startMillis(), y.startMillis()))
                .toList();
        for (FaultEvent e : kills) {
            long a = Math.max(covered, e.startMillis());
            long b = Math.min(to, e.endMillis());
            if (b > a) {
                total += b - a;
                covered = b;
            }
        }
        return total;
    }
}

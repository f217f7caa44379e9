package io.zkfence.server;

import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.random.RandomGenerator;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;

/**
 * One acquire call: its request, its entry as last read, and what it wrote. It queues the entry
 * (or joins the one another call of the same request queued), waits in FIFO order and answers the
 * grant; {@link Acquirer} says which promise each step keeps.
 *
 * <p>Every decision rests on a fresh, consistent read: the queue and the call's own entry read
 * together ({@link LockQueue#list}), never on a copy kept from before, because another call of the
 * same request, on another replica, may have written the entry since. Every removal goes through
 * {@link EntryRemovals}, which never removes an entry that may have been granted.
 */
final class AcquireCall implements AutoCloseable {

    /** A decision read from ZooKeeper longer ago than this is read again before it is answered. */
    static final Duration STALE_DECISION = Duration.ofSeconds(1);

    private static final int QUEUE_ATTEMPTS = 8;

    private final LockQueue queue;
    private final ZkWire wire;
    private final ReplicaRegistry replicas;
    private final FinishedRequests finished;
    private final LockTokens tokens;
    private final LeaseConfirmer confirmer;
    private final Leftovers leftovers;
    private final EntryRemovals removals;
    private final ServiceMetrics metrics;
    private final Clock clock;
    private final int maxWaiters;
    private final long lagBoundMillis;
    private final OpenWaits waits;
    private final Scheduler scheduler;
    private final ContendedLocks contended;
    private final RandomGenerator random;

    private final Acquirer.Request req;
    private final CallerPresence caller;
    private final String lockPath;
    private final String request;
    private long deadline;
    /** The call's entry as last read or written, with the queue it was read with. */
    private QueueEntry own;

    private List<EntryName> line;
    /** The entry's version as this call last wrote it; -1 if it never wrote (it joined another call's entry). */
    private int written = -1;
    /**
     * True while this call's entry is a lease standing alone that it queued for a waiting request
     * on the guess that the lock was free ({@link #queuesAsLease}): if another entry is ahead of
     * it, the call makes it a waiting entry in place ({@link #convertGuessedLease}).
     */
    private boolean guessedFree;
    /** True once a guess that the lock was free proved wrong: the call queues waiting entries only. */
    private boolean guessedWrong;
    /** Conversions of a guessed lease that did not write (the entry ahead went, or this replica's marker). */
    private int failedConversions;
    /** Time (this replica's clock) taken before the ZooKeeper read the current decision rests on. */
    private long readAt;
    /**
     * True while the current decision rests on the queueing multi and the read pipelined behind it:
     * the multi went through the leader, so the server that answered was in touch with it then.
     */
    private boolean fromLeader;

    private long waitingSince;
    /** Where a run that could not wait stopped: the watch it set, until when, and on whose replica. */
    private Parked parked;

    private record Parked(PredecessorWatch watch, long until, String tiedTo) {}

    AcquireCall(AcquireContext ctx, Acquirer.Request req, CallerPresence caller) {
        this.queue = ctx.queue();
        this.wire = ctx.wire();
        this.replicas = ctx.replicas();
        this.finished = ctx.finished();
        this.tokens = ctx.tokens();
        this.confirmer = ctx.confirmer();
        this.leftovers = ctx.leftovers();
        this.removals = ctx.removals();
        this.metrics = ctx.metrics();
        this.clock = ctx.clock();
        this.maxWaiters = ctx.maxWaiters();
        this.lagBoundMillis = ctx.lagBoundMillis();
        this.waits = ctx.waits();
        this.scheduler = ctx.scheduler();
        this.contended = ctx.contended();
        this.random = ctx.random();
        this.req = req;
        this.caller = caller;
        this.lockPath = ctx.paths().lock(req.key());
        this.request = req.requestId() == null
                ? "n" + HexFormat.of().formatHex(randomBytes(random, 8))
                : "q" + ServicePaths.digest(req.ownerId() + "\u0000" + req.requestId());
        this.deadline = clock.millis() + (req.waiting() ? req.waitMillis() : 0);
    }

    /** Queues this request's entry, or finds the entry another call of it queued. */
    private void enqueue() {
        for (int attempt = 0; attempt < QUEUE_ATTEMPTS; attempt++) {
            if (caller.gone()) {
                // Before anything is written: a request read from a buffer after its caller left.
                throw AcquireRefusals.callerGone(req.key());
            }
            long t0 = clock.millis();
            String self = replicas.self();
            boolean asLease = queuesAsLease();
            EntryData data = asLease
                    ? EntryData.lease(req.ownerId(), req.requestId(), req.ttlMillis(), t0)
                    : EntryData.waiting(req.ownerId(), req.requestId(), req.ttlMillis(), deadline, self);
            List<Op> notFinished = req.requestId() == null ? List.of() : finished.notFinished(lockPath, request);
            LockQueue.Queued queued;
            try {
                queued = queue.enqueue(
                        lockPath,
                        HexFormat.of().formatHex(randomBytes(random, 6)),
                        request,
                        data,
                        asLease ? null : replicas.markerPath(self),
                        notFinished);
            } catch (KeeperException e) {
                throw Unavailable.zooKeeperAnswered(
                        "queueing on lock '" + req.key().key() + "'", e);
            }
            readAt = t0;
            switch (queued) {
                case LockQueue.Created created -> {
                    own = created.entry();
                    written = own.version();
                    line = created.queue();
                    fromLeader = true;
                    guessedFree = asLease && req.waiting();
                    failedConversions = 0;
                    contended.saw(lockPath, line.size());
                    return;
                }
                case LockQueue.AlreadyQueued again -> {
                    if (join(again.queue())) {
                        return;
                    }
                }
                case LockQueue.Finished done ->
                    throw finishedAnswer(finished.lookUp(lockPath, request).orElse(null));
                case LockQueue.ReplicaUnregistered unregistered -> replicas.ensureOwnMarker();
                case LockQueue.RecordsMissing missing -> finished.repair();
                case LockQueue.LockMissing missing -> queue.createLock(lockPath);
            }
        }
        throw AcquireRefusals.notQueued(req.key(), QUEUE_ATTEMPTS);
    }

    /**
     * Whether this call queues its entry as a lease that stands alone (valid from its creation
     * until the TTL has passed, like an acquire without a wait). Always without a wait. With a
     * wait, when its grant at the head would need a confirmation write (a TTL longer than twice
     * what an unconfirmed grant may be answered valid for, {@link #grant}) and this replica did
     * not find the lock contended the last time it queued on it: if the lock is free, the grant is
     * answered without that write. Only once per call: after a wrong guess (its entry made a
     * waiting one in place) it queues waiting entries if it queues again.
     */
    private boolean queuesAsLease() {
        if (!req.waiting()) {
            return true;
        }
        return !guessedWrong
                && req.ttlMillis() > 2 * unconfirmedValidity(wire.sessionTimeoutMs(), 0)
                && contended.likelyFree(lockPath);
    }

    /**
     * Joins the entry another call of this request queued. A waiting call takes an unconfirmed
     * entry over (ties it to this replica's session and extends its wait), so that the entry
     * outlives the other call's replica; but only while another entry is ahead of it (a check in
     * the same multi): an entry at the head may have been granted without a write by the call it
     * is tied to, whose answer rests on that tie. At the head this call answers the grant through a
     * confirmation instead. False if the entry ended meanwhile.
     */
    private boolean join(List<EntryName> queued) {
        EntryName name = queued.stream()
                .filter(n -> n.request().equals(request))
                .findFirst()
                .orElse(null);
        if (name == null) {
            return false;
        }
        for (int attempt = 0; attempt < QUEUE_ATTEMPTS; attempt++) {
            readAt = clock.millis();
            fromLeader = false;
            LockQueue.Listing listing = queue.list(lockPath, name);
            if (listing.entry() == null) {
                return false;
            }
            own = listing.entry();
            line = listing.line();
            int place = indexOf(line, name);
            if (!req.waiting() || own.data().standsAlone() || place <= 0) {
                return place >= 0;
            }
            String self = replicas.self();
            EntryData taken =
                    own.data().onReplica(self).waitingUntil(Math.max(own.data().waitUntil(), deadline));
            Optional<QueueEntry> mine =
                    queue.writeIfMarkerAndAhead(lockPath, own, taken, replicas.markerPath(self), line.get(place - 1));
            if (mine.isPresent()) {
                own = mine.get();
                written = own.version();
                return true;
            }
            // Written, gone, or now first since the read: read again and decide again.
        }
        return true;
    }

    /**
     * Runs the call on until it is answered: the grant, or an exception. With {@code mayWait}
     * false (on a thread that must not park for long) it stops where it would start to wait, its
     * watch set, and returns null: run it again with {@code mayWait} true to go on from there.
     */
    LeaseGrant run(boolean mayWait) {
        boolean relist = false;
        if (parked != null) {
            if (!mayWait) {
                return null;
            }
            Parked p = parked;
            parked = null;
            await(p.watch().latch(), Math.max(1, p.until() - clock.millis()), p.tiedTo());
            relist = !p.watch().changedOnly();
        }
        while (true) {
            if (own == null) {
                enqueue();
            } else if (relist) {
                relistAfterWait();
            }
            LeaseGrant grant = waitForTurn(mayWait);
            if (grant != null || parked != null) {
                return grant;
            }
            // The entry went without a record (its earlier call gave it up): queue again.
            own = null;
            written = -1;
            relist = false;
        }
    }

    /**
     * Waits until the entry is first (a grant) or the wait ends; null if the entry went without a
     * record, or if it must wait and may not ({@link #parked} set).
     */
    private LeaseGrant waitForTurn(boolean mayWait) {
        boolean justQueued = true;
        while (true) {
            long now = clock.millis();
            int place = own == null ? -1 : indexOf(line, own.name());
            if (place < 0) {
                return ended();
            }
            if (place > 0 && guessedFree && own.data().standsAlone()) {
                convertGuessedLease(place);
                relist();
                continue;
            }
            guessedFree = false;
            if (place > 0 && retake(place)) {
                continue;
            }
            if (place == 0) {
                LeaseGrant grant = grant();
                if (grant != null) {
                    return grant;
                }
                relist();
                continue;
            }
            if (justQueued && written >= 0 && place > maxWaiters) {
                abandon();
                throw AcquireRefusals.tooManyWaiters(req.key(), place - 1, maxWaiters);
            }
            justQueued = false;
            EntryName ahead = line.get(place - 1);
            // If the entry ahead was granted here and goes (released through any replica), this
            // replica need not confirm it any more, nor read it when the confirmation is due.
            PredecessorWatch watch = new PredecessorWatch(() -> confirmer.cancel(lockPath, ahead));
            QueueEntry predecessor = queue.read(lockPath, ahead, watch).orElse(null);
            if (predecessor == null) {
                relist();
                continue;
            }
            if (predecessor.dead(now, replicas)) {
                reapAhead(place);
                relist();
                continue;
            }
            if ((!req.waiting() || now >= deadline) && giveUpOrWaitLonger(ahead, place)) {
                relist();
                continue;
            }
            if (caller.gone()) {
                abandon();
                throw AcquireRefusals.callerGone(req.key());
            }
            if (waits.stopping()) {
                abandon();
                throw AcquireRefusals.shuttingDown();
            }
            if (waitingSince == 0) {
                waitingSince = now;
                metrics.waitStarted();
            }
            String tiedTo =
                    predecessor.tiedToReplica() && !predecessor.data().replica().equals(replicas.self())
                            ? predecessor.data().replica()
                            : null;
            long until = Math.min(deadline, predecessor.endsAt());
            if (!mayWait) {
                parked = new Parked(watch, until, tiedTo);
                return null;
            }
            await(watch.latch(), Math.max(1, until - now), tiedTo);
            if (!watch.changedOnly()) {
                relistAfterWait();
            }
            // Else only the entry ahead was written (its grant confirmed, a renewal): entries only
            // leave, so the queue ahead is as last read; the loop reads that entry again (its new
            // end, a new watch) and waits on, one request instead of a fresh listing's three.
        }
    }

    /**
     * The lock was not free: another entry is ahead of the lease this call queued on the guess
     * that it was. The call makes that entry a waiting one in place (tied to this replica's session,
     * its wait this call's), so the request keeps its place in the queue: one write, in a multi that
     * also requires the entry ahead to exist (while it does, the lease was never first, so never
     * granted) and this replica's marker (a waiting entry hangs on its session). If it does not
     * write, the caller reads the queue again: the entry ahead went (the lease may be first now,
     * and is then granted, valid from its creation), or the marker was missing (registered here
     * again before the next try).
     */
    private void convertGuessedLease(int place) {
        guessedWrong = true;
        String self = replicas.self();
        EntryData waiting = EntryData.waiting(req.ownerId(), req.requestId(), req.ttlMillis(), deadline, self);
        Optional<QueueEntry> mine =
                queue.writeIfMarkerAndAhead(lockPath, own, waiting, replicas.markerPath(self), line.get(place - 1));
        if (mine.isPresent()) {
            own = mine.get();
            written = own.version();
            guessedFree = false;
            return;
        }
        if (++failedConversions >= QUEUE_ATTEMPTS) {
            throw AcquireRefusals.notQueued(req.key(), QUEUE_ATTEMPTS);
        }
        replicas.ensureOwnMarker();
    }

    /**
     * The entry is tied to another call's replica (a copy of this request there took it over) and
     * that replica's session has ended: the entry is dead, and the waiter behind it would remove
     * it. While another entry is ahead of it (it was never granted), this call takes it back, so
     * the request keeps its place. True if it tried (read the queue again).
     */
    private boolean retake(int place) {
        EntryData d = own.data();
        if (!req.waiting()
                || d.standsAlone()
                || d.replica() == null
                || d.replica().equals(replicas.self())
                || replicas.alive(d.replica())) {
            return false;
        }
        String self = replicas.self();
        queue.writeIfMarkerAndAhead(
                        lockPath,
                        own,
                        d.onReplica(self).waitingUntil(Math.max(d.waitUntil(), deadline)),
                        replicas.markerPath(self),
                        line.get(place - 1))
                .ifPresent(mine -> {
                    own = mine;
                    written = mine.version();
                });
        relist();
        return true;
    }

    /**
     * Any waiter reaps every dead entry ahead of it (the predecessor it found dead, and any other),
     * by the one rule of {@link EntryRemovals#reap}: the head with its request's record, the rest
     * without one.
     */
    private void reapAhead(int place) {
        // Entries only leave, so the first of these still there is the head now.
        List<QueueEntry> ahead = queue.readAll(lockPath, line.subList(0, place));
        long now = clock.millis();
        removals.reap(lockPath, ahead, e -> e.dead(now, replicas));
    }

    /**
     * The wait ran out (or there is none). Another call of this request may have extended the
     * entry's wait: then this call waits as long (true). Else the entry goes, with the record that
     * the request gave up, and this call answers 409; but never once it is first (then it is
     * granted: true, read the queue again and answer it).
     */
    private boolean giveUpOrWaitLonger(EntryName ahead, int place) {
        if (req.waiting() && !own.data().standsAlone() && own.data().waitUntil() > deadline) {
            deadline = own.data().waitUntil();
            return true;
        }
        switch (removals.giveUp(lockPath, own, ahead)) {
            case REMOVED, GONE -> {
                QueueEntry head = place == 1
                        ? queue.read(lockPath, ahead, null).orElse(null)
                        : queue.read(lockPath, line.get(0), null).orElse(null);
                throw AcquireRefusals.alreadyHeld(req.key(), head, clock.millis());
            }
            default -> {
                return true; // changed or first since the read: read again and decide again
            }
        }
    }

    /**
     * The entry is first (in the read {@link #own} was read with). Answers its grant:
     * <ul>
     *   <li>a lease that stands alone: its own expiry, no write, but no more than the TTL from the
     *       read (that expiry may be another replica's clock's);
     *   <li>an unconfirmed entry tied to this replica that this call wrote last, with a TTL at most
     *       twice what an unconfirmed grant may be answered valid for ({@link #unconfirmedValidity}):
     *       the TTL or that validity, whichever is shorter, no write; it is confirmed off the
     *       answer's path ({@link LeaseConfirmer});
     *   <li>any other unconfirmed entry (another call's, another replica's, or a TTL longer than
     *       that): confirmed first, with a write, then answered for its TTL.
     * </ul>
     * Null if the entry changed under this call (read the queue again).
     */
    private LeaseGrant grant() {
        long expiresAt;
        long now = clock.millis();
        if (own.dead(now, replicas)) {
            // Dead at the head: it may have been granted, so its request has ended. Never answer it.
            removals.reap(lockPath, List.of(own), e -> true);
            return ended();
        }
        String self = replicas.self();
        if (own.data().standsAlone()) {
            // Its expiry may have been written by another replica's clock (a renewal keeps the later
            // one): counted on this clock it could say more than the TTL, so never past read + TTL.
            expiresAt = Math.min(own.data().expiresAt(), readAt + own.data().ttlMillis());
        } else if (written == own.version()
                && self.equals(own.data().replica())
                && own.data().ttlMillis() <= 2 * validity()) {
            // Tied to this replica's session, which lives at least that long after the read that
            // showed it first; and nobody else could have answered it (a grant by another call writes).
            // Answered for the TTL, or for less but more than half the TTL: a caller that renews at a
            // third of the TTL it asked for, as lock clients do, renews in time.
            long valid = Math.min(own.data().ttlMillis(), validity());
            expiresAt = Math.min(readAt + valid, own.data().expiresAt());
            confirmer.schedule(lockPath, own.name(), Duration.ofMillis(Math.max(1, valid / 2)));
        } else {
            Optional<LeaseConfirmer.Confirmed> confirmed = confirmer.confirmNow(lockPath, own);
            if (confirmed.isEmpty()) {
                return null;
            }
            own = confirmed.get().entry();
            written = own.version();
            readAt = confirmed.get().from();
            expiresAt = confirmed.get().until();
        }
        if (clock.millis() - readAt > STALE_DECISION.toMillis()
                && queue.read(lockPath, own.name(), null).isEmpty()) {
            // This replica was paused (or ZooKeeper slow) since the decision, and the entry went.
            confirmer.cancel(lockPath, own.name());
            return ended();
        }
        now = clock.millis();
        if (now >= expiresAt) {
            throw AcquireRefusals.endedBeforeAnswered(req.key(), now - expiresAt);
        }
        if (waitingSince > 0) {
            metrics.waited(Duration.ofMillis(now - waitingSince));
        }
        return new LeaseGrant(
                req.key().key(),
                tokens.issue(lockPath, own.name(), req.ownerId()),
                own.fencingToken(),
                req.ownerId(),
                expiresAt);
    }

    /** What an unconfirmed grant may be answered valid for on the read the current decision rests on. */
    private long validity() {
        return unconfirmedValidity(wire.sessionTimeoutMs(), fromLeader ? 0 : lagBoundMillis);
    }

    /**
     * The entry is gone. With a record, the request ended: a call that had joined a wait which
     * ran out answers as the call that gave up did (409 held); otherwise the request finished
     * (409 REQUEST_FINISHED). Without one, it was given up by another call whose caller left:
     * null, queue again.
     */
    private LeaseGrant ended() {
        if (req.requestId() == null) {
            return null;
        }
        Optional<FinishedRequests.Finished> record = finished.lookUp(lockPath, request);
        if (record.isEmpty()) {
            return null;
        }
        throw finishedAnswer(record.get());
    }

    /**
     * The answer to a request that finished: the same refusal again if it was refused (409
     * held: a request is answered alike however often it arrives); 409 REQUEST_FINISHED if it was
     * granted and the lease has ended since (never that dead grant again).
     */
    private LockServiceException finishedAnswer(FinishedRequests.Finished record) {
        if (record != null && record.outcome() == FinishedRequests.Outcome.GAVE_UP) {
            List<EntryName> now = queue.queue(lockPath);
            QueueEntry head = now.isEmpty()
                    ? null
                    : queue.read(lockPath, now.get(0), null).orElse(null);
            return AcquireRefusals.alreadyHeld(req.key(), head, clock.millis());
        }
        return AcquireRefusals.requestFinished(req, record);
    }

    /** Reads the queue and this call's entry with it (one consistent view). */
    private void relist() {
        relist(false);
    }

    /**
     * After a wait, which usually ends because the entry ahead went and this one is first. When
     * the follower-lag bound alone would make a grant from this read need a confirmation write
     * first ({@link #grant}), the read goes behind a sync: a grant it shows may then be answered
     * without a write for as long as one read behind the queueing write ({@link
     * #unconfirmedValidity} with no lag). A sync is a round trip to the leader, not a write.
     */
    private void relistAfterWait() {
        boolean syncDecides = false;
        if (own != null && !own.data().standsAlone()) {
            long ttl = own.data().ttlMillis();
            int session = wire.sessionTimeoutMs();
            syncDecides = ttl > 2 * unconfirmedValidity(session, lagBoundMillis)
                    && ttl <= 2 * unconfirmedValidity(session, 0);
        }
        relist(syncDecides);
    }

    private void relist(boolean synced) {
        readAt = clock.millis();
        fromLeader = false;
        if (own == null) {
            line = queue.queue(lockPath);
            return;
        }
        LockQueue.Listing listing = queue.list(lockPath, own.name(), synced);
        fromLeader = synced;
        line = listing.line();
        if (listing.entry() == null) {
            line = line.stream().filter(n -> !n.equals(own.name())).toList();
        } else {
            own = listing.entry();
        }
    }

    /**
     * This call gives up its entry without a record (its caller left, the replica stops, an
     * error): a retry of the request may queue again. Only what this call wrote last, and only by
     * the rule of {@link EntryRemovals#leave}; if ZooKeeper does not answer, {@link Leftovers}
     * tries again by the same rule.
     */
    private void abandon() {
        if (own == null || written < 0) {
            return;
        }
        QueueEntry mine = own;
        int place = line == null ? -1 : indexOf(line, mine.name());
        EntryName ahead = place > 0 ? line.get(place - 1) : null;
        own = null;
        try {
            if (removals.leave(lockPath, mine, written, ahead) == EntryRemovals.Outcome.REMOVED) {
                confirmer.cancel(lockPath, mine.name());
            }
        } catch (LockServiceException e) {
            leftovers.leave(lockPath, mine, written, ahead);
        }
    }

    /** An error ends the wait: the entry goes too (not after a grant, and not for a refusal that removed it). */
    void abandonOn(LockServiceException e) {
        if (e.code() == ErrorCode.UNAVAILABLE || e.code() == ErrorCode.INTERNAL) {
            abandon();
        }
    }

    private void await(CountDownLatch changed, long millis, String tiedTo) {
        waits.open(changed);
        Runnable stopWatchingCaller = caller.onGone(changed::countDown);
        Runnable stopWatchingReplica = tiedTo == null ? () -> {} : replicas.onGone(tiedTo, changed::countDown);
        try {
            scheduler.await(changed, millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Unavailable.interrupted("waiting in the queue", e);
        } finally {
            waits.close(changed);
            stopWatchingCaller.run();
            stopWatchingReplica.run();
        }
    }

    @Override
    public void close() {
        if (waitingSince > 0) {
            metrics.waitEnded();
        }
    }

    /**
     * How long a lease granted from the queue may be answered valid without a write, counted from
     * the read that showed it first: the entry lives while this replica's ZooKeeper session does,
     * and that session cannot expire sooner than a session timeout after the leader last heard of
     * it. The read proves the session alive at the server that answered it; the leader heard of
     * the session at most a third of the timeout before that (an idle client pings every third),
     * or, when that server was cut off from its leader (it goes on answering reads for up to its
     * sync limit, and touches nothing at the leader meanwhile), a third of the timeout before it
     * was cut off: so two thirds of the timeout less {@code lagBoundMillis}, which is 0 for a read
     * pipelined behind a write or a sync that went through the leader (the queueing multi, or the
     * sync of {@link #relistAfterWait}). 0 (confirm every grant first) when the session is too
     * short for that, or there is none.
     */
    static long unconfirmedValidity(int sessionTimeoutMs, long lagBoundMillis) {
        return Math.max(0, sessionTimeoutMs * 2L / 3 - lagBoundMillis);
    }

    private static int indexOf(List<EntryName> line, EntryName name) {
        for (int i = 0; i < line.size(); i++) {
            if (line.get(i).node().equals(name.node())) {
                return i;
            }
        }
        return -1;
    }

    private static byte[] randomBytes(RandomGenerator random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }
}

package io.zkfence.server;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.random.RandomGenerator;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;

/**
 * One acquire call: its request, its entry as last known, and what it wrote. It queues the entry
 * (or joins the one another call of the same request queued), waits in FIFO order and answers the
 * grant; {@link Acquirer} says which promise each step keeps.
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
    private final ServiceMetrics metrics;
    private final Clock clock;
    private final int maxWaiters;
    private final OpenWaits waits;
    private final Scheduler scheduler;
    private final RandomGenerator random;

    private final Acquirer.Request req;
    private final CallerPresence caller;
    private final String lockPath;
    private final String request;
    private long deadline;
    private QueueEntry own;
    /** The entry's version as this call last wrote it; -1 if it never wrote (it joined another call's entry). */
    private int written = -1;
    /** Time (this replica's clock) taken before the ZooKeeper read the current decision rests on. */
    private long readAt;

    private long waitingSince;
    /** Where a run that could not wait stopped: the watch it set, until when, and on whose replica. */
    private Parked parked;

    private record Parked(CountDownLatch changed, long until, String tiedTo) {}

    AcquireCall(AcquireContext ctx, Acquirer.Request req, CallerPresence caller) {
        this.queue = ctx.queue();
        this.wire = ctx.wire();
        this.replicas = ctx.replicas();
        this.finished = ctx.finished();
        this.tokens = ctx.tokens();
        this.confirmer = ctx.confirmer();
        this.leftovers = ctx.leftovers();
        this.metrics = ctx.metrics();
        this.clock = ctx.clock();
        this.maxWaiters = ctx.maxWaiters();
        this.waits = ctx.waits();
        this.scheduler = ctx.scheduler();
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
    private List<EntryName> enqueue() {
        for (int attempt = 0; attempt < QUEUE_ATTEMPTS; attempt++) {
            if (caller.gone()) {
                // Before anything is written: a request read from a buffer after its caller left.
                throw AcquireRefusals.callerGone(req.key());
            }
            long t0 = clock.millis();
            String self = replicas.self();
            EntryData data = req.waiting()
                    ? EntryData.waiting(req.ownerId(), req.requestId(), req.ttlMillis(), deadline, self)
                    : EntryData.lease(req.ownerId(), req.requestId(), req.ttlMillis(), t0);
            List<Op> notFinished = req.requestId() == null ? List.of() : finished.notFinished(lockPath, request);
            LockQueue.Queued queued;
            try {
                queued = queue.enqueue(
                        lockPath,
                        HexFormat.of().formatHex(randomBytes(random, 6)),
                        request,
                        data,
                        req.waiting() ? replicas.markerPath(self) : null,
                        notFinished);
            } catch (KeeperException e) {
                throw AcquireRefusals.unavailable(
                        "queueing on lock '" + req.key().key() + "'", e);
            }
            readAt = t0;
            switch (queued) {
                case LockQueue.Created created -> {
                    own = created.entry();
                    written = own.version();
                    return created.queue();
                }
                case LockQueue.AlreadyQueued again -> {
                    if (join(again.queue())) {
                        return again.queue();
                    }
                }
                case LockQueue.Finished done ->
                    throw finishedAnswer(finished.lookUp(lockPath, request).orElse(null));
                case LockQueue.ReplicaUnregistered unregistered -> replicas.ensureOwnMarker();
                case LockQueue.RecordsMissing missing -> finished.repair();
                case LockQueue.LockMissing missing -> queue.createLock(lockPath);
            }
        }
        throw new LockServiceException(
                ErrorCode.UNAVAILABLE,
                "could not queue on lock '" + req.key().key() + "' in " + QUEUE_ATTEMPTS
                        + " attempts; retry with the same requestId");
    }

    /**
     * Takes over the entry another call of this request queued: this call's replica now keeps
     * it alive, and its wait lasts at least as long as this call's. False if it ended meanwhile.
     */
    private boolean join(List<EntryName> line) {
        EntryName name = line.stream()
                .filter(n -> n.request().equals(request))
                .findFirst()
                .orElse(null);
        if (name == null) {
            return false;
        }
        Optional<QueueEntry> found = queue.read(lockPath, name, null);
        if (found.isEmpty()) {
            return false;
        }
        own = found.get();
        if (!req.waiting() || own.data().standsAlone()) {
            return true;
        }
        String self = replicas.self();
        EntryData taken =
                own.data().onReplica(self).waitingUntil(Math.max(own.data().waitUntil(), deadline));
        Optional<QueueEntry> mine = queue.writeIfMarker(lockPath, own, taken, replicas.markerPath(self));
        if (mine.isPresent()) {
            own = mine.get();
            written = own.version();
        }
        // Written or not (another call wrote it first), this call waits on the entry.
        return true;
    }

    /**
     * Runs the call on until it is answered: the grant, or an exception. With {@code mayWait}
     * false (on a thread that must not park for long) it stops where it would start to wait, its
     * watch set, and returns null: run it again with {@code mayWait} true to go on from there.
     */
    LeaseGrant run(boolean mayWait) {
        List<EntryName> line = null;
        if (parked != null) {
            if (!mayWait) {
                return null;
            }
            Parked p = parked;
            parked = null;
            await(p.changed(), Math.max(1, p.until() - clock.millis()), p.tiedTo());
            line = relist();
        }
        while (true) {
            if (line == null) {
                line = enqueue();
            }
            LeaseGrant grant = waitForTurn(line, mayWait);
            if (grant != null || parked != null) {
                return grant;
            }
            // The entry went without a record (its earlier call gave it up): queue again.
            line = null;
        }
    }

    /**
     * Waits until the entry is first (a grant) or the wait ends; null if the entry went without a
     * record, or if it must wait and may not ({@link #parked} set).
     */
    private LeaseGrant waitForTurn(List<EntryName> line, boolean mayWait) {
        boolean justQueued = true;
        while (true) {
            long now = clock.millis();
            int place = indexOf(line, own.name());
            if (place < 0) {
                return ended();
            }
            if (place == 0) {
                LeaseGrant grant = grant();
                if (grant != null) {
                    return grant;
                }
                line = relist();
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
                line = relist();
                continue;
            }
            if (predecessor.dead(now, replicas)) {
                // Nobody else deletes an entry whose lease ran out or whose replica died: the
                // waiter behind it does. At the head it may have been granted: its request ends.
                reap(predecessor, place - 1 == 0);
                line = relist();
                continue;
            }
            if ((!req.waiting() || now >= deadline) && giveUpOrWaitLonger(line, place, predecessor)) {
                line = relist();
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
                parked = new Parked(watch.latch(), until, tiedTo);
                return null;
            }
            await(watch.latch(), Math.max(1, until - now), tiedTo);
            line = relist();
        }
    }

    /**
     * The wait ran out (or there is none). Another call of this request may have extended the
     * entry's wait: then this call waits as long (true). Else the entry goes, with the record
     * that the request gave up, and this call answers 409.
     */
    private boolean giveUpOrWaitLonger(List<EntryName> line, int place, QueueEntry predecessor) {
        if (req.waiting()) {
            Optional<QueueEntry> now = queue.read(lockPath, own.name(), null);
            if (now.isEmpty()) {
                return true; // ended meanwhile: the loop reads the queue and answers
            }
            own = now.get();
            if (!own.data().standsAlone() && own.data().waitUntil() > deadline) {
                deadline = own.data().waitUntil();
                return true;
            }
        }
        // Only while the entry ahead is still there: once it goes, this entry may be first and
        // granted, without a write, by another call of this request (a hedge on another
        // replica); the versioned delete alone would take that lease away.
        String ahead = lockPath + "/" + predecessor.name().node();
        LockQueue.Removal removal =
                remove(own, recordIf(true, FinishedRequests.Outcome.GAVE_UP), List.of(wire.checkOp(ahead, -1)));
        if (removal == null) {
            return true; // the entry ahead went: read the queue again and decide again
        }
        if (removal == LockQueue.Removal.CHANGED) {
            own = queue.read(lockPath, own.name(), null).orElse(own);
            return true;
        }
        QueueEntry head = place == 1
                ? predecessor
                : queue.read(lockPath, line.get(0), null).orElse(null);
        throw AcquireRefusals.alreadyHeld(req.key(), head, clock.millis());
    }

    /**
     * The entry is first. Answers its grant: at once for a lease that stands alone or for this
     * replica's own unconfirmed entry (valid for {@link #unconfirmedValidity}); after a write for
     * an entry another replica's call keeps alive. Null if the entry changed under this call
     * (read the queue again).
     */
    private LeaseGrant grant() {
        long expiresAt;
        String self = replicas.self();
        if (own.data().standsAlone() && written != own.version() && own.dead(clock.millis(), replicas)) {
            // Another call's lease (a retry, a copy through another replica) that has expired:
            // its request has ended. Never answer that lease again.
            reap(own, true);
            return ended();
        }
        if (own.data().standsAlone()) {
            expiresAt = own.data().expiresAt();
        } else if (written == own.version() && self.equals(own.data().replica())) {
            long validity = unconfirmedValidity(wire, req.ttlMillis());
            // No later than the entry's own backstop, which every replica honours.
            expiresAt = Math.min(readAt + validity, own.data().expiresAt());
            confirmer.schedule(
                    lockPath,
                    own,
                    own.data().confirmedUntil(readAt, readAt + req.ttlMillis()),
                    Duration.ofMillis(validity / 2));
        } else {
            // Kept alive by another replica's session (a call of this request there), or by an
            // earlier session of this replica: confirm it before answering.
            Optional<QueueEntry> now = queue.read(lockPath, own.name(), null);
            if (now.isEmpty()) {
                return ended();
            }
            own = now.get();
            if (own.data().standsAlone()) {
                expiresAt = own.data().expiresAt();
            } else {
                long t = clock.millis();
                Optional<QueueEntry> confirmed =
                        queue.write(lockPath, own, own.data().confirmedUntil(t, t + req.ttlMillis()));
                if (confirmed.isEmpty()) {
                    return null;
                }
                own = confirmed.get();
                written = own.version();
                readAt = t;
                expiresAt = t + req.ttlMillis();
            }
        }
        if (clock.millis() - readAt > STALE_DECISION.toMillis()
                && queue.read(lockPath, own.name(), null).isEmpty()) {
            // This replica was paused (or ZooKeeper slow) since the decision, and the entry went.
            confirmer.cancel(lockPath, own.name());
            return ended();
        }
        long now = clock.millis();
        if (now >= expiresAt) {
            confirmer.cancel(lockPath, own.name());
            throw new LockServiceException(
                    ErrorCode.UNAVAILABLE,
                    "the lease on lock '" + req.key().key() + "' ended " + (now - expiresAt)
                            + " ms before it could be answered (ZooKeeper was slow); retry");
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
            List<EntryName> line = queue.queue(lockPath);
            QueueEntry head = line.isEmpty()
                    ? null
                    : queue.read(lockPath, line.get(0), null).orElse(null);
            return AcquireRefusals.alreadyHeld(req.key(), head, clock.millis());
        }
        return AcquireRefusals.requestFinished(req, record);
    }

    private List<EntryName> relist() {
        readAt = clock.millis();
        return queue.queue(lockPath);
    }

    private void reap(QueueEntry dead, boolean atHead) {
        LockQueue.Removal removal = remove(dead, recordIfFor(dead, atHead, FinishedRequests.Outcome.EXPIRED));
        if (removal == LockQueue.Removal.DELETED && atHead) {
            metrics.expired();
        }
    }

    private List<Op> recordIf(boolean condition, FinishedRequests.Outcome outcome) {
        return condition && req.requestId() != null ? List.of(finished.record(lockPath, request, outcome)) : List.of();
    }

    private List<Op> recordIfFor(QueueEntry e, boolean condition, FinishedRequests.Outcome outcome) {
        return condition && e.name().hasRequestId()
                ? List.of(finished.record(lockPath, e.name().request(), outcome))
                : List.of();
    }

    private LockQueue.Removal remove(QueueEntry e, List<Op> record) {
        return remove(e, record, List.of());
    }

    /**
     * Removes {@code e} with {@code record}, if every node {@code conditions} checks is there;
     * null if one of them is not (nothing removed).
     */
    private LockQueue.Removal remove(QueueEntry e, List<Op> record, List<Op> conditions) {
        List<Op> withRecord = new ArrayList<>(conditions);
        withRecord.addAll(record);
        try {
            try {
                return queue.remove(lockPath, e.name(), e.version(), withRecord);
            } catch (KeeperException.NodeExistsException recorded) {
                // The request's record exists already (recorded by another replica): remove without it.
                return queue.remove(lockPath, e.name(), e.version(), conditions);
            }
        } catch (KeeperException.NoNodeException gone) {
            if (checks(conditions, gone.getPath())) {
                return null;
            }
            throw AcquireRefusals.unavailable(
                    "removing an entry of lock '" + req.key().key() + "'", gone);
        } catch (KeeperException other) {
            throw AcquireRefusals.unavailable(
                    "removing an entry of lock '" + req.key().key() + "'", other);
        }
    }

    /**
     * This call gives up its entry without a record (its caller left, the replica stops, an
     * error): a retry of the request may queue again. Only if this call wrote the entry last: a
     * later call of the same request that took it over waits on it.
     */
    private void abandon() {
        if (own == null || written < 0 || own.version() != written) {
            return;
        }
        confirmer.cancel(lockPath, own.name());
        QueueEntry mine = own;
        own = null;
        try {
            queue.remove(lockPath, mine.name(), written, List.of());
        } catch (KeeperException | LockServiceException e) {
            leftovers.remove(lockPath, mine.name(), written);
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
            throw new LockServiceException(ErrorCode.UNAVAILABLE, "interrupted while waiting in the queue");
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
     * How long a lease granted from the queue is answered valid before it is confirmed: two thirds
     * of the session timeout ZooKeeper granted this replica, or the TTL if that is shorter. The
     * session cannot expire sooner than a full timeout after the read that proved it alive.
     */
    static long unconfirmedValidity(ZkWire wire, long ttlMillis) {
        int session = wire.sessionTimeoutMs();
        return Math.min(ttlMillis, Math.max(1, session * 2L / 3));
    }

    private static boolean checks(List<Op> conditions, String path) {
        return conditions.stream().anyMatch(c -> c.getPath().equals(path));
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

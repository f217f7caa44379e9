package io.zkfence.server;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;

/**
 * Every way an entry leaves a lock's queue, other than its holder's release and an admin's forced
 * release: a call giving up its wait, a call leaving (its caller gone, the replica stopping, an
 * error, too many waiters) and its leftover retried later, and dead entries reaped. One rule
 * guards them all: <b>an entry that may have been granted is never removed while it may still be
 * answered valid</b>. Three facts make that checkable in the removal's own multi, never from a
 * copy a call remembers:
 *
 * <ul>
 *   <li>Only the first entry of a queue is ever granted, and once first it stays first until it
 *       goes (entries only leave; new ones queue behind). So an entry with another entry ahead of
 *       it was never granted: a {@code check} that the entry ahead still exists, in the multi that
 *       removes it, proves it at the moment of removal.
 *   <li>A grant from the queue without a write is answered only by the call that wrote the entry
 *       last ({@link AcquireCall}); every other grant writes (a confirmation). So a delete at the
 *       version a call wrote itself succeeds only if nobody but that call could have answered it.
 *   <li>A lease that stands alone (an acquire without a wait, or a confirmed one) is answered by
 *       any call of its request without a write: at the head it is removed only when dead.
 * </ul>
 *
 * <p>A dead entry at the head may have been granted: its request ends with an {@code EXPIRED}
 * record, so a late copy of it never grants again. A dead entry behind a live one was never
 * granted: it goes without a record (its request may queue again), in the same multi that checks
 * the entry ahead. Any waiter reaps every dead entry ahead of it, and status every dead entry, by
 * this one rule ({@link #reap}).
 */
final class EntryRemovals {

    /** What a removal did. */
    enum Outcome {
        /** Removed. */
        REMOVED,
        /** It was gone already. */
        GONE,
        /** Written since the version given (renewed, confirmed, taken over): left in place. */
        CHANGED,
        /** The entry ahead went: it may be first now, so it was left; read the queue again. */
        NOW_FIRST,
        /** Left in place: it may have been granted (a lease at the head). */
        KEPT
    }

    private final LockQueue queue;
    private final ZkWire wire;
    private final FinishedRequests finished;
    private final ServiceMetrics metrics;

    EntryRemovals(LockQueue queue, ZkWire wire, FinishedRequests finished, ServiceMetrics metrics) {
        this.queue = queue;
        this.wire = wire;
        this.finished = finished;
        this.metrics = metrics;
    }

    /**
     * A call gives up the wait of its request: the entry goes with the record that the request gave
     * up (so every copy of it is answered 409 alike), but only while it is not first. At the head
     * it is granted: {@link Outcome#NOW_FIRST} or {@link Outcome#KEPT}, and the call answers the grant.
     *
     * @param e     the entry as read
     * @param ahead the entry ahead of it in the queue read (null: it was first)
     */
    Outcome giveUp(String lockPath, QueueEntry e, EntryName ahead) {
        if (ahead == null) {
            return Outcome.KEPT;
        }
        List<Op> record = e.name().hasRequestId()
                ? List.of(finished.record(lockPath, e.name().request(), FinishedRequests.Outcome.GAVE_UP))
                : List.of();
        return remove(lockPath, e.name(), e.version(), ahead, record);
    }

    /**
     * A call leaves its entry without a record (its caller left, the replica stops, an error, too
     * many waiters): a retry of the request may queue again. It removes only what it wrote itself:
     * an unconfirmed entry at the version it wrote last (nobody else answered it then), a lease
     * that stands alone only while another entry is ahead of it.
     *
     * @param e        the entry as last read or written
     * @param ownWrite the version this call wrote last (-1: it never wrote the entry)
     * @param ahead    the entry ahead of it in the queue last read (null: it was first)
     */
    Outcome leave(String lockPath, QueueEntry e, int ownWrite, EntryName ahead) {
        if (ownWrite < 0) {
            return Outcome.KEPT; // another call's entry: it waits on it
        }
        if (e.tiedToReplica()) {
            return remove(lockPath, e.name(), ownWrite, null, List.of());
        }
        if (ahead == null) {
            return Outcome.KEPT;
        }
        return remove(lockPath, e.name(), ownWrite, ahead, List.of());
    }

    /**
     * Removes, in one multi, every entry of {@code read} that {@code dead} says is dead:
     * {@code read} is a queue's entries as read, in order, from its head. The head, if dead, goes
     * with its request's {@code EXPIRED} record; the others without one, guarded by the head's
     * existence when the head lives (they were never first, so never granted).
     *
     * <p>A dead head removed counts as an expiry ({@code zkfence_service_expiries_total}).
     *
     * @return {@link Outcome#REMOVED} if any went, {@link Outcome#KEPT} if none was dead, or
     *     {@link Outcome#CHANGED} if the queue moved since the read (read it again)
     */
    Outcome reap(String lockPath, List<QueueEntry> read, Predicate<QueueEntry> dead) {
        if (read.isEmpty()) {
            return Outcome.KEPT;
        }
        QueueEntry head = read.get(0);
        List<QueueEntry> doomed = new ArrayList<>();
        for (QueueEntry e : read) {
            if (dead.test(e)) {
                doomed.add(e);
            }
        }
        if (doomed.isEmpty()) {
            return Outcome.KEPT;
        }
        boolean headDies = doomed.get(0) == head;
        List<Op> ops = new ArrayList<>();
        if (!headDies) {
            ops.add(wire.checkOp(lockPath + "/" + head.name().node(), -1));
        }
        for (QueueEntry e : doomed) {
            ops.addAll(queue.removalOps(lockPath, e.name(), e.version()));
        }
        boolean recorded =
                headDies && head.name().hasRequestId() && !head.name().legacy();
        if (recorded) {
            ops.add(finished.record(lockPath, head.name().request(), FinishedRequests.Outcome.EXPIRED));
        }
        try {
            try {
                queue.multiOf(ops);
            } catch (KeeperException.NodeExistsException recordedAlready) {
                if (!recorded) {
                    throw recordedAlready;
                }
                queue.multiOf(ops.subList(0, ops.size() - 1)); // another replica recorded it first
            }
            if (headDies) {
                metrics.expired();
            }
            return Outcome.REMOVED;
        } catch (KeeperException.NoNodeException | KeeperException.BadVersionException moved) {
            return Outcome.CHANGED;
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("removing dead entries", e);
        }
    }

    /** Removes {@code name} at {@code version} with {@code extra}, while {@code ahead} (if not null) exists. */
    private Outcome remove(String lockPath, EntryName name, int version, EntryName ahead, List<Op> extra) {
        List<Op> ops = new ArrayList<>();
        String aheadPath = ahead == null ? null : wire.abs(lockPath + "/" + ahead.node());
        if (ahead != null) {
            ops.add(wire.checkOp(lockPath + "/" + ahead.node(), -1));
        }
        ops.addAll(extra);
        try {
            LockQueue.Removal r;
            try {
                r = queue.remove(lockPath, name, version, ops);
            } catch (KeeperException.NodeExistsException recordedAlready) {
                // The request's record exists already (written by another replica): remove without it.
                r = queue.remove(lockPath, name, version, ahead == null ? List.of() : ops.subList(0, 1));
            }
            return switch (r) {
                case DELETED -> Outcome.REMOVED;
                case GONE -> Outcome.GONE;
                case CHANGED -> Outcome.CHANGED;
            };
        } catch (KeeperException.NoNodeException gone) {
            if (aheadPath != null && aheadPath.equals(gone.getPath())) {
                return Outcome.NOW_FIRST;
            }
            throw Unavailable.zooKeeperAnswered("removing an entry", gone);
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("removing an entry", e);
        }
    }
}

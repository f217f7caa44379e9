package io.zkfence.server;

import io.zkfence.lock.ForcedRelease;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;

/**
 * What a holder and an admin do to a granted lease: renew, release, force-release.
 *
 * <p>Renew and release reach the entry from the lockToken alone ({@link LockTokens}: it names the
 * entry and proves the caller its owner), without listing the queue. A renew is a read and a
 * versioned write; a release is one multi that deletes the caller's own entry (a token names
 * exactly one) with its request's finished record. A forced release deletes exactly the holder
 * entry it read, with the audit entry and the finished record, in one multi: both or neither.
 *
 * <p>Neither is sent again blindly when its answer is lost: a release that succeeded would find
 * its entry gone and answer that nothing was held, a forced release would find the next holder
 * and answer {@code HOLDER_CHANGED}. Each reads back what happened first ({@link ZkWire#callOnce}).
 */
final class LeaseOps {

    /** How often a write whose answer was lost, and that read back as not applied, is sent again. */
    static final int SEND_ATTEMPTS = 3;

    private final LockQueue queue;
    private final ReplicaRegistry replicas;
    private final FinishedRequests finished;
    private final LockTokens tokens;
    private final LeaseConfirmer confirmer;
    private final EntryRemovals removals;
    private final AuditTrail audit;
    private final ServiceMetrics metrics;
    private final ServicePaths paths;
    private final Clock clock;

    LeaseOps(
            LockQueue queue,
            ReplicaRegistry replicas,
            FinishedRequests finished,
            LockTokens tokens,
            LeaseConfirmer confirmer,
            EntryRemovals removals,
            AuditTrail audit,
            ServiceMetrics metrics,
            ServicePaths paths,
            Clock clock) {
        this.queue = queue;
        this.replicas = replicas;
        this.finished = finished;
        this.tokens = tokens;
        this.confirmer = confirmer;
        this.removals = removals;
        this.audit = audit;
        this.metrics = metrics;
        this.paths = paths;
        this.clock = clock;
    }

    /**
     * Extends the lease to now + {@code ttlMillis} (this replica's clock, taken before the read), or
     * keeps the expiry it has if that is later: a renewal never shortens a lease, since an earlier
     * answer (a renewal through another replica, one whose answer was lost, a confirmation's slack)
     * may have told the holder it is valid until then. The renewed lease stands alone, whichever
     * replica granted it.
     *
     * <p>The answer is now + {@code ttlMillis} whatever was written: a kept expiry was written by
     * another clock, and counted on this one (behind that one by seconds, say) it would tell the
     * holder more than the TTL, and more than the lease lasts where that other clock decides.
     *
     * @return the end to answer: now + {@code ttlMillis} on this replica's clock, at or before the
     *     expiry the entry holds
     * @throws LockServiceException 403 {@code NOT_LOCK_OWNER} for a token not issued for this lock
     *     and owner; 409 {@code LOCK_EXPIRED} if the lease ended (expired, released, force-released)
     */
    long renew(LockKey key, String lockToken, String ownerId, long ttlMillis) {
        String lockPath = paths.lock(key);
        EntryName name = entryOf(key, lockPath, lockToken, ownerId);
        boolean synced = false;
        while (true) {
            long now = clock.millis();
            Optional<QueueEntry> read = queue.read(lockPath, name, null);
            RenewalWrite write = decideRenewal(key, lockPath, read, synced, ownerId, ttlMillis, now);
            if (write == null) {
                // The entry may be newer than what this replica's server has seen: sync and read again.
                queue.sync(lockPath);
                synced = true;
                continue;
            }
            Optional<QueueEntry> renewed = queue.write(lockPath, write.read(), write.data());
            if (renewed.isPresent()) {
                return renewedUntil(key, lockPath, write);
            }
            // Written or removed since the read: read again (the write's answer came through this
            // replica's server, which has seen the change now).
        }
    }

    /**
     * What a renewal writes: the entry as read (its version is the write's condition), its new data,
     * and the end to answer once written.
     */
    record RenewalWrite(QueueEntry read, EntryData data, long answered) {}

    /**
     * One renewal's decision on its entry as read at {@code now} (this replica's clock, taken before
     * the read), shared by the single renewal ({@link #renew}) and the batch ({@link BatchRenewal}),
     * so that both decide alike: a lease found neither before nor after a sync ended; another owner's
     * is refused; a dead one is reaped and ended; a live one is written to expire at now +
     * {@code ttlMillis} or at the expiry it keeps, whichever is later (a renewal never shortens a
     * lease).
     *
     * @param read the entry as read, empty if it was not found
     * @param synced whether the read came after a sync of the lock
     * @return the write to make, or null when the entry was not found before a sync: sync and read again
     * @throws LockServiceException 403 {@code NOT_LOCK_OWNER}, 409 {@code LOCK_EXPIRED}
     */
    RenewalWrite decideRenewal(
            LockKey key,
            String lockPath,
            Optional<QueueEntry> read,
            boolean synced,
            String ownerId,
            long ttlMillis,
            long now) {
        if (read.isEmpty() && !synced) {
            return null;
        }
        if (read.isEmpty()) {
            throw expired(key, "it was released, expired or was force-released");
        }
        QueueEntry e = read.get();
        checkOwner(key, e, ownerId);
        if (e.dead(now, replicas)) {
            reap(lockPath, e);
            throw expired(key, "it expired " + Math.max(0, now - e.data().expiresAt()) + " ms ago");
        }
        // A renewal whose clock was read before another renewal's write (a slow read, a clock
        // behind) would otherwise move the expiry back under that renewal's answer.
        long answered = now + ttlMillis;
        long expiresAt = Math.max(answered, e.data().standsAlone() ? e.data().expiresAt() : 0);
        return new RenewalWrite(e, e.data().confirmedUntil(now, expiresAt), answered);
    }

    /**
     * After a renewal's write: the lease stands alone now, so its confirmation is not needed; its
     * answer is {@code write.answered()}, unless that end has passed already.
     *
     * @throws LockServiceException 409 {@code LOCK_EXPIRED} if ZooKeeper took longer than the TTL
     */
    long renewedUntil(LockKey key, String lockPath, RenewalWrite write) {
        confirmer.cancel(lockPath, write.read().name());
        if (clock.millis() >= write.answered()) {
            throw expired(key, "ZooKeeper took longer than the TTL to renew it");
        }
        return write.answered();
    }

    /**
     * Releases the lease: deletes the caller's entry. True if it was still there (nobody else held
     * the lock since the grant, even if its expiry had passed); false if it had ended already.
     *
     * @throws LockServiceException 403 {@code NOT_LOCK_OWNER} for a token not issued for this lock and owner
     */
    boolean release(LockKey key, String lockToken, String ownerId) {
        String lockPath = paths.lock(key);
        EntryName name = entryOf(key, lockPath, lockToken, ownerId);
        if (name.legacy()) {
            return releaseLegacy(key, lockPath, name, ownerId);
        }
        confirmer.cancel(lockPath, name);
        List<Op> record = name.hasRequestId()
                ? List.of(finished.record(lockPath, name.request(), FinishedRequests.Outcome.RELEASED))
                : List.of();
        for (int attempt = 0; attempt < SEND_ATTEMPTS; attempt++) {
            LockQueue.Removal removal;
            try {
                try {
                    removal = queue.removeOnce(lockPath, name, -1, record);
                } catch (KeeperException.NodeExistsException recordedAlready) {
                    removal = queue.removeOnce(lockPath, name, -1, List.of());
                }
            } catch (ZkWire.AnswerLost lost) {
                // Read back: still there, it was not applied (send it again); gone, its record says how.
                queue.sync(lockPath);
                if (queue.read(lockPath, name, null).isPresent()) {
                    continue;
                }
                return releasedHere(lockPath, name);
            } catch (KeeperException e) {
                throw Unavailable.zooKeeperAnswered("releasing lock '" + key.key() + "'", e);
            }
            // The multi's answer comes from the leader: GONE is not a lagging read.
            return removal == LockQueue.Removal.DELETED;
        }
        throw Unavailable.answerLost("releasing lock '" + key.key() + "'", SEND_ATTEMPTS, null);
    }

    /**
     * After a release whose answer was lost found its entry gone: whether a release took it (its
     * request's record says {@code RELEASED}) or it had ended before. A lease without a requestId
     * has no record: false, the answer that errs on the safe side (the caller then does not assume
     * that nobody else held the lock).
     */
    private boolean releasedHere(String lockPath, EntryName name) {
        return name.hasRequestId()
                && finished.lookUp(lockPath, name.request())
                        .map(r -> r.outcome() == FinishedRequests.Outcome.RELEASED)
                        .orElse(false);
    }

    /** A previous-protocol entry found by its token: the owner is checked from its data. */
    private boolean releaseLegacy(LockKey key, String lockPath, EntryName name, String ownerId) {
        while (true) {
            Optional<QueueEntry> read = queue.read(lockPath, name, null);
            if (read.isEmpty()) {
                return false;
            }
            checkOwner(key, read.get(), ownerId);
            boolean live = !read.get().dead(clock.millis(), replicas);
            LockQueue.Removal removal = removeQuietly(lockPath, name, read.get().version());
            if (removal != LockQueue.Removal.CHANGED) {
                return removal == LockQueue.Removal.DELETED && live;
            }
        }
    }

    /**
     * Ends the current holder's lease at once, whoever holds it, recorded in the audit trail in the
     * same multi. Deletes exactly the entry read (versioned; a renew meanwhile is read again), so
     * the next holder is never touched; that holder's fencing token is higher, so resources reject
     * the evicted holder's late writes.
     *
     * @param expectedFencingToken if not null, release only a holder with this token
     *     (otherwise {@code HOLDER_CHANGED}, nothing deleted)
     */
    ForcedRelease forceRelease(LockKey key, String reason, String by, Long expectedFencingToken) {
        String lockPath = paths.lock(key);
        queue.sync(lockPath);
        while (true) {
            List<EntryName> line = queue.queue(lockPath);
            QueueEntry head = line.isEmpty()
                    ? null
                    : queue.read(lockPath, line.get(0), null).orElse(null);
            if (head == null && !line.isEmpty()) {
                continue; // went since the list was read
            }
            if (head != null && head.dead(clock.millis(), replicas)) {
                reap(lockPath, head);
                continue;
            }
            if (head == null || (head.name().legacy() && !head.data().standsAlone())) {
                return recordOnly(forced(key, ForcedRelease.Outcome.NOT_HELD, null, reason, by));
            }
            if (expectedFencingToken != null && head.fencingToken() != expectedFencingToken) {
                return recordOnly(forced(key, ForcedRelease.Outcome.HOLDER_CHANGED, head, reason, by));
            }
            ForcedRelease result = forced(key, ForcedRelease.Outcome.RELEASED, head, reason, by);
            List<Op> extra = new ArrayList<>();
            extra.add(audit.appendOp(result));
            if (head.name().hasRequestId()) {
                extra.add(finished.record(lockPath, head.name().request(), FinishedRequests.Outcome.FORCE_RELEASED));
            }
            LockQueue.Removal removal;
            try {
                try {
                    removal = queue.removeOnce(lockPath, head.name(), head.version(), extra);
                } catch (KeeperException.NodeExistsException recordedAlready) {
                    removal = queue.removeOnce(lockPath, head.name(), head.version(), List.of(extra.get(0)));
                }
            } catch (ZkWire.AnswerLost lost) {
                // Read back: its audit entry is there only if the eviction was applied (one multi).
                if (!audit.recorded(result)) {
                    continue;
                }
                removal = LockQueue.Removal.DELETED;
            } catch (KeeperException e) {
                throw Unavailable.zooKeeperAnswered("force-releasing lock '" + key.key() + "'", e);
            }
            if (removal == LockQueue.Removal.CHANGED) {
                continue; // renewed meanwhile: the same holder, read again
            }
            if (removal == LockQueue.Removal.GONE) {
                return recordOnly(forced(key, ForcedRelease.Outcome.HOLDER_CHANGED, head, reason, by));
            }
            confirmer.cancel(lockPath, head.name());
            audit.trim();
            metrics.forceReleased(result.outcome().name().toLowerCase(Locale.ROOT));
            return result;
        }
    }

    /** A forced release that deleted nothing: only its audit entry is written. */
    private ForcedRelease recordOnly(ForcedRelease result) {
        for (int attempt = 0; ; attempt++) {
            try {
                queue.multiOnce(List.of(audit.appendOp(result)));
                break;
            } catch (ZkWire.AnswerLost lost) {
                if (audit.recorded(result)) {
                    break;
                }
                if (attempt + 1 >= SEND_ATTEMPTS) {
                    throw Unavailable.answerLost(
                            "recording the forced release of '" + result.lockName() + "'", SEND_ATTEMPTS, lost);
                }
            } catch (KeeperException e) {
                throw Unavailable.zooKeeperAnswered("recording the forced release of '" + result.lockName() + "'", e);
            }
        }
        audit.trim();
        metrics.forceReleased(result.outcome().name().toLowerCase(Locale.ROOT));
        return result;
    }

    /**
     * Removes a dead lease at the head of its queue (versioned) with its request's record, by the
     * one reaping rule ({@link EntryRemovals#reap}): it was granted, so its request ended.
     */
    private void reap(String lockPath, QueueEntry dead) {
        removals.reap(lockPath, List.of(dead), e -> true);
    }

    private LockQueue.Removal removeQuietly(String lockPath, EntryName name, int version) {
        try {
            return queue.remove(lockPath, name, version, List.of());
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("removing an entry", e);
        }
    }

    /**
     * The entry a lockToken names. A token of this protocol is checked by its MAC (no read); a
     * previous-protocol token (the secret in the entry's name) is looked for in the queue, for
     * leases granted before a rolling upgrade. A token of that shape found in no entry proves
     * nothing (anyone can write 32 hex digits): it is refused as not the owner's, whether it was
     * forged or named a previous-protocol lease that has ended.
     *
     * @throws LockServiceException 403 {@code NOT_LOCK_OWNER}
     */
    EntryName entryOf(LockKey key, String lockPath, String lockToken, String ownerId) {
        if (!LockTokens.legacy(lockToken)) {
            return tokens.check(lockPath, lockToken, ownerId).orElseThrow(() -> notOwner(key));
        }
        for (EntryName n : queue.queue(lockPath)) {
            if (n.legacy() && n.id().equals(lockToken)) {
                return n;
            }
        }
        queue.sync(lockPath);
        for (EntryName n : queue.queue(lockPath)) {
            if (n.legacy() && n.id().equals(lockToken)) {
                return n;
            }
        }
        throw new LockServiceException(
                ErrorCode.NOT_LOCK_OWNER,
                "this lockToken names no lease of lock '" + key.key()
                        + "' (it has the shape of a previous protocol's, whose leases it names only while they last)");
    }

    private static void checkOwner(LockKey key, QueueEntry e, String ownerId) {
        if (!e.data().ownerId().equals(ownerId)) {
            throw notOwner(key);
        }
    }

    private static LockServiceException notOwner(LockKey key) {
        return new LockServiceException(
                ErrorCode.NOT_LOCK_OWNER, "this lockToken was not issued to this ownerId for lock '" + key.key() + "'");
    }

    private static LockServiceException expired(LockKey key, String why) {
        return new LockServiceException(
                ErrorCode.LOCK_EXPIRED, "the lease on lock '" + key.key() + "' has ended: " + why + "; acquire again");
    }

    private ForcedRelease forced(
            LockKey key, ForcedRelease.Outcome outcome, QueueEntry holder, String reason, String by) {
        return new ForcedRelease(
                key.key(),
                outcome,
                // The entry's sequence, not its name: a previous-protocol name holds a lockToken.
                holder == null ? "" : String.valueOf(holder.name().sequence()),
                holder == null ? "" : holder.data().ownerId(),
                holder == null ? 0 : holder.fencingToken(),
                reason,
                by,
                clock.instant());
    }
}

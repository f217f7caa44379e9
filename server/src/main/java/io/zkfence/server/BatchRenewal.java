package io.zkfence.server;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Renews many leases (of any locks) in one call: each decided exactly as a single renewal decides
 * ({@link LeaseOps#decideRenewal}, {@link LeaseOps#renewedUntil}), but their entries read pipelined
 * (one round trip for all) and their versioned writes sent in one ZooKeeper multi: one transaction,
 * one log write on each server, for up to {@link #MAX_LEASES} leases, where one by one they cost
 * one each. A renewal is what bounds how many leases an ensemble carries (docs/server.md, "The
 * service at scale"), so a client holding many leases renews them all this way.
 *
 * <p>A multi is all or nothing: if one entry changed since it was read (renewed or released
 * through another call meanwhile), ZooKeeper refuses the whole multi and names that entry's op
 * (the first it refused). The others are read again: those unchanged are sent again in the next
 * multi as decided (their version checks still guard them), and the named one and any other that
 * changed are decided again on that fresh read, as the single renewal does after a refused write. So
 * a concurrent renewal or release of one lease never fails the others, and a race that changed
 * many entries (another call renewing the same leases) costs one refused multi, not one per entry.
 * A multi whose answer is lost is never sent again blindly: its leases are read again and decided
 * again (a renewal that was applied shows in the entry; writing it again cannot shorten it).
 *
 * <p>A refusal of one lease ({@code NOT_LOCK_OWNER}, {@code LOCK_EXPIRED}) is that lease's outcome;
 * ZooKeeper out of reach is the whole call's (503), with the leases written before it renewed.
 */
final class BatchRenewal {

    /** The most leases one batch renews. */
    static final int MAX_LEASES = 1_000;

    /**
     * The most bytes (paths and data) of writes in one multi: ZooKeeper refuses a request larger than
     * its {@code jute.maxbuffer} (1 MiB by default); a larger batch is written in several multis.
     */
    static final int MULTI_MAX_BYTES = 512 * 1024;

    /** One lease to renew: the single renewal's fields. */
    record Lease(LockKey key, String lockToken, String ownerId, long ttlMillis) {}

    /**
     * One lease's outcome, in the batch's order: renewed (the end to answer, on this replica's clock)
     * or refused.
     */
    record Outcome(long expiresAt, LockServiceException refused) {
        boolean renewed() {
            return refused == null;
        }
    }

    private final LeaseOps ops;
    private final LockQueue queue;
    private final ServicePaths paths;
    private final Clock clock;

    BatchRenewal(LeaseOps ops, LockQueue queue, ServicePaths paths, Clock clock) {
        this.ops = ops;
        this.queue = queue;
        this.paths = paths;
        this.clock = clock;
    }

    /**
     * A lease still to renew: where its entry is, whether its lock was synced for it, and its entry
     * as read after a refused multi (with the clock taken before that read), to be decided on
     * without being read a third time; null when the next round must read it.
     */
    private static final class Pending {
        final int index;
        final Lease lease;
        final LockQueue.Located at;
        boolean synced;
        Optional<QueueEntry> reread;
        long rereadAt;

        Pending(int index, Lease lease, LockQueue.Located at) {
            this.index = index;
            this.lease = lease;
            this.at = at;
        }
    }

    /** A decided write, with its bytes. */
    private record Decided(Pending pending, LeaseOps.RenewalWrite write, byte[] data) {
        int size() {
            return pending.at.path().getBytes(StandardCharsets.UTF_8).length + data.length;
        }
    }

    /**
     * Renews each lease as {@link LeaseOps#renew} would.
     *
     * @param leases 1 to {@link #MAX_LEASES} leases, no lockToken twice (the caller checks)
     * @return each lease's outcome, in the order given
     * @throws LockServiceException 503 if ZooKeeper cannot be reached in time (the leases whose
     *     writes were applied before are renewed)
     */
    List<Outcome> renew(List<Lease> leases) {
        Outcome[] out = new Outcome[leases.size()];
        List<Pending> pending = new ArrayList<>(leases.size());
        for (int i = 0; i < leases.size(); i++) {
            Lease l = leases.get(i);
            String lockPath = paths.lock(l.key());
            try {
                EntryName name = ops.entryOf(l.key(), lockPath, l.lockToken(), l.ownerId());
                pending.add(new Pending(i, l, new LockQueue.Located(lockPath, name)));
            } catch (LockServiceException e) {
                out[i] = refused(e);
            }
        }
        int lostAnswers = 0;
        while (!pending.isEmpty()) {
            long now = clock.millis();
            List<LockQueue.Located> at = new ArrayList<>(pending.size());
            for (Pending p : pending) {
                if (p.reread == null) {
                    at.add(p.at);
                }
            }
            List<Optional<QueueEntry>> reads = at.isEmpty() ? List.of() : queue.readEach(at);
            List<Pending> again = new ArrayList<>();
            List<Decided> writes = new ArrayList<>(pending.size());
            Set<String> synced = new HashSet<>();
            int next = 0;
            for (Pending p : pending) {
                Optional<QueueEntry> read = p.reread != null ? p.reread : reads.get(next++);
                long readAt = p.reread != null ? p.rereadAt : now;
                p.reread = null;
                Lease l = p.lease;
                LeaseOps.RenewalWrite w;
                try {
                    w = ops.decideRenewal(l.key(), p.at.lockPath(), read, p.synced, l.ownerId(), l.ttlMillis(), readAt);
                } catch (LockServiceException e) {
                    out[p.index] = refused(e);
                    continue;
                }
                if (w == null) {
                    // Not found: the entry may be newer than what this replica's server has seen.
                    if (synced.add(p.at.lockPath())) {
                        queue.sync(p.at.lockPath());
                    }
                    p.synced = true;
                    again.add(p);
                    continue;
                }
                writes.add(new Decided(p, w, queue.bytes(w.data())));
            }
            while (!writes.isEmpty()) {
                List<Decided> multi = firstMulti(writes);
                List<LockQueue.Located> where = new ArrayList<>(multi.size());
                List<QueueEntry> read = new ArrayList<>(multi.size());
                List<byte[]> data = new ArrayList<>(multi.size());
                for (Decided d : multi) {
                    where.add(d.pending().at);
                    read.add(d.write().read());
                    data.add(d.data());
                }
                LockQueue.WrittenAll written;
                try {
                    written = queue.writeEach(where, read, data);
                } catch (ZkWire.AnswerLost lost) {
                    // Applied or not: read them again and decide again.
                    if (++lostAnswers >= LeaseOps.SEND_ATTEMPTS) {
                        throw Unavailable.answerLost("renewing a batch of leases", LeaseOps.SEND_ATTEMPTS, lost);
                    }
                    for (Decided d : multi) {
                        again.add(d.pending());
                    }
                    writes = new ArrayList<>(writes.subList(multi.size(), writes.size()));
                    continue;
                }
                if (written instanceof LockQueue.OneChanged changed) {
                    // Written or removed since the read, and the multi wrote none of them. It names
                    // only the first op it refused; others may have changed too (a client's next
                    // round renewing the same leases while this one is slow changes all of them).
                    writes = withoutChanged(writes, changed.index(), again);
                    continue;
                }
                for (Decided d : multi) {
                    Pending p = d.pending();
                    try {
                        out[p.index] = new Outcome(ops.renewedUntil(p.lease.key(), p.at.lockPath(), d.write()), null);
                    } catch (LockServiceException e) {
                        out[p.index] = refused(e);
                    }
                }
                writes = new ArrayList<>(writes.subList(multi.size(), writes.size()));
            }
            pending = again;
        }
        return List.of(out);
    }

    /**
     * The writes to send again as decided after a refused multi: all but the one it named and those
     * whose entries changed since their read, found by reading them again (pipelined, no write).
     * Those go to {@code again}, to be decided again on that read. Sending the others as decided
     * without looking would cost one refused multi, each a transaction of the whole multi on every
     * server, per changed entry; deciding all again without the named one's removal could refuse
     * forever under a steady stream of renewals of one entry. This way each refused multi removes
     * the named entry at least, and usually every entry changed by the same race.
     */
    private List<Decided> withoutChanged(List<Decided> writes, int named, List<Pending> again) {
        List<LockQueue.Located> at = new ArrayList<>(writes.size());
        for (Decided d : writes) {
            at.add(d.pending().at);
        }
        long readAt = clock.millis();
        List<Optional<QueueEntry>> now = queue.readEach(at);
        List<Decided> keep = new ArrayList<>(writes.size());
        for (int i = 0; i < writes.size(); i++) {
            Decided d = writes.get(i);
            boolean same = now.get(i)
                    .map(e -> e.version() == d.write().read().version())
                    .orElse(false);
            if (i == named || !same) {
                d.pending().reread = now.get(i);
                d.pending().rereadAt = readAt;
                again.add(d.pending());
            } else {
                keep.add(d);
            }
        }
        return keep;
    }

    /** The writes of the next multi: as many from the start as fit in {@link #MULTI_MAX_BYTES}, at least one. */
    private static List<Decided> firstMulti(List<Decided> writes) {
        int bytes = 0;
        int n = 0;
        while (n < writes.size()) {
            int size = writes.get(n).size();
            if (n > 0 && bytes + size > MULTI_MAX_BYTES) {
                break;
            }
            bytes += size;
            n++;
        }
        return writes.subList(0, n);
    }

    /** A lease's own refusal is its outcome; ZooKeeper out of reach (or this replica stopping) ends the call. */
    private static Outcome refused(LockServiceException e) {
        if (e.code().retryable() || e.code() == ErrorCode.INTERNAL) {
            throw e;
        }
        return new Outcome(0, e);
    }
}

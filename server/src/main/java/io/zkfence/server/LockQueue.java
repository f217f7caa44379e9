package io.zkfence.server;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zkfence.lock.internal.Failures;
import io.zkfence.lock.internal.ZkGateway;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * The entries of locks in ZooKeeper: how one is queued, read, written and removed, each in as
 * few requests as the protocol allows. No decisions: those are {@link Acquirer}'s and
 * {@link LeaseOps}'.
 *
 * <ul>
 *   <li>Queueing is one multi: [the replica's marker exists] [the request has not finished]
 *       create {@code r-<request>}, create the entry, touch {@code r-<request>} (whose new stat
 *       carries the multi's zxid: the entry's creation zxid, its fencing token). The child list is
 *       read pipelined behind it, so it shows the entry.
 *   <li>Removing is one multi: delete the entry (versioned), delete {@code r-<request>}, and for a
 *       request with a requestId that ended, create its finished record.
 * </ul>
 */
final class LockQueue {

    private final ZkWire wire;
    private final ObjectMapper json =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final String finishedRoot;

    LockQueue(ZkWire wire, ServicePaths paths) {
        this.wire = wire;
        this.finishedRoot = paths.done();
    }

    /** What one queueing multi did. */
    sealed interface Queued {}

    /** The entry was created: its name, fencing token, and the child list read right after. */
    record Created(QueueEntry entry, List<EntryName> queue) implements Queued {}

    /** The request already has an entry (a retry, or the same request through another replica). */
    record AlreadyQueued(List<EntryName> queue) implements Queued {}

    /** The request finished before (its record exists): never queue it again. */
    record Finished() implements Queued {}

    /** This replica's marker was missing (a new session): register and send it again. */
    record ReplicaUnregistered() implements Queued {}

    /** A finished-request shard was missing: make the buckets and send it again. */
    record RecordsMissing() implements Queued {}

    /** The lock's znode does not exist yet: create it and send again. */
    record LockMissing() implements Queued {}

    /**
     * Queues an entry for {@code request} with {@code data}.
     *
     * @param marker the replica marker to require (null: none, for an entry that does not depend on it)
     * @param notFinished ops failing the multi if the request finished (empty: no requestId)
     */
    Queued enqueue(String lockPath, String id, String request, EntryData data, String marker, List<Op> notFinished)
            throws KeeperException {
        byte[] bytes = bytes(data);
        String requestNode = lockPath + "/" + EntryName.requestNode(request);
        List<Op> ops = new ArrayList<>();
        if (marker != null) {
            ops.add(wire.checkOp(marker, -1));
        }
        ops.addAll(notFinished);
        int requestOp = ops.size();
        ops.add(wire.createOp(requestNode, new byte[0], CreateMode.PERSISTENT));
        ops.add(wire.createOp(lockPath + "/" + EntryName.prefix(id, request), bytes, CreateMode.PERSISTENT_SEQUENTIAL));
        ops.add(wire.setDataOp(requestNode, new byte[0], -1));
        record Answer(List<OpResult> results, KeeperException refused, List<String> children) {}
        Answer answer = wire.call("queueing on a lock", () -> {
            CompletableFuture<List<OpResult>> multi = wire.multi(ops);
            // Pipelined: the same session's next request, answered after the multi took effect.
            CompletableFuture<ZkGateway.Children> children = wire.children(lockPath);
            return multi.handle((results, failure) -> {
                        KeeperException refused = refusal(failure);
                        return new Answer(results, refused, null);
                    })
                    .thenCombine(
                            children.handle((kids, failure) -> kids == null ? null : kids.names()),
                            (a, kids) -> new Answer(a.results(), a.refused(), kids));
        });
        if (answer.refused() != null) {
            // The refused op is told by its path.
            String failed = answer.refused().getPath();
            KeeperException.Code code = answer.refused().code();
            if (marker != null && wire.abs(marker).equals(failed) && code == KeeperException.Code.NONODE) {
                return new ReplicaUnregistered();
            }
            if (failed != null && failed.startsWith(wire.abs(finishedRoot) + "/")) {
                return code == KeeperException.Code.NODEEXISTS ? new Finished() : new RecordsMissing();
            }
            if (wire.abs(requestNode).equals(failed) && code == KeeperException.Code.NODEEXISTS) {
                return new AlreadyQueued(queueOrThrow(lockPath, answer.children()));
            }
            if (wire.abs(requestNode).equals(failed) && code == KeeperException.Code.NONODE) {
                return new LockMissing();
            }
            throw answer.refused();
        }
        String path = ((OpResult.CreateResult) answer.results().get(requestOp + 1)).getPath();
        Stat touched = ((OpResult.SetDataResult) answer.results().get(requestOp + 2)).getStat();
        EntryName name = EntryName.parse(path.substring(path.lastIndexOf('/') + 1))
                .orElseThrow(() -> new IllegalStateException("ZooKeeper named the entry " + path));
        QueueEntry entry = new QueueEntry(name, data, touched.getMzxid(), 0);
        return new Created(entry, queueOrThrow(lockPath, answer.children()));
    }

    /** Creates a lock's znode (and its namespace's) as containers: ZooKeeper removes them once empty. */
    void createLock(String lockPath) {
        wire.createPath(lockPath, CreateMode.CONTAINER);
    }

    /** The lock's entries in queue order (empty if the lock's znode does not exist). */
    List<EntryName> queue(String lockPath) {
        try {
            return EntryName.inQueueOrder(wire.call("reading a lock's queue", () -> wire.children(lockPath))
                    .names());
        } catch (KeeperException.NoNodeException none) {
            return List.of();
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("reading a lock's queue", e);
        }
    }

    /** A queue as read: its entries in order, and one entry's data read right after (null: it is gone). */
    record Listing(List<EntryName> line, QueueEntry entry) {}

    /**
     * The lock's entries in queue order and, pipelined behind that read on the same session,
     * {@code name}'s data: the entry as it was when the list was read, or later (ZooKeeper answers
     * one session's reads in order), never earlier. A decision about the entry's place and its
     * data rests on one consistent view, not on a copy kept from before.
     */
    Listing list(String lockPath, EntryName name) {
        return list(lockPath, name, false);
    }

    /**
     * As {@link #list(String, EntryName)}, with a sync pipelined before the reads when {@code synced}:
     * the reads are then answered after the sync reached the leader (ZooKeeper answers one
     * session's requests in order), so this replica's server was in touch with its leader after
     * the read began, as after a write. A sync is a round trip to the leader; it writes no log.
     */
    Listing list(String lockPath, EntryName name, boolean synced) {
        record Answer(
                List<String> children, KeeperException childrenFailed, ZkGateway.NodeContent node, boolean gone) {}
        Answer a;
        try {
            a = wire.call("reading a lock's queue", () -> {
                CompletableFuture<Void> sync = synced ? wire.sync(lockPath) : CompletableFuture.completedFuture(null);
                CompletableFuture<ZkGateway.Children> kids = wire.children(lockPath);
                CompletableFuture<ZkGateway.NodeContent> data = wire.data(lockPath + "/" + name.node(), null);
                return kids.handle((k, kf) -> k)
                        .thenCombine(
                                data.handle((d, df) -> {
                                    if (df != null) {
                                        KeeperException ke = refusal(df);
                                        if (ke.code() != KeeperException.Code.NONODE) {
                                            throw new CompletionException(ke);
                                        }
                                    }
                                    return d;
                                }),
                                (k, d) -> new Answer(k == null ? null : k.names(), null, d, d == null))
                        .thenCombine(sync, (answer, done) -> answer);
            });
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("reading a lock's queue", e);
        }
        List<EntryName> line = a.children() == null ? queue(lockPath) : EntryName.inQueueOrder(a.children());
        return new Listing(line, a.gone() ? null : entry(name, a.node()));
    }

    /** The ops that remove an entry at {@code version} and its request's companion (for a multi). */
    List<Op> removalOps(String lockPath, EntryName name, int version) {
        List<Op> ops = new ArrayList<>(2);
        ops.add(wire.deleteOp(lockPath + "/" + name.node(), version));
        if (name.requestNode() != null) {
            ops.add(wire.deleteOp(lockPath + "/" + name.requestNode(), -1));
        }
        return ops;
    }

    /** Brings this replica's server up to date with the leader on {@code path} first (a failed sync is a 503). */
    void sync(String path) {
        try {
            wire.call("syncing", () -> wire.sync(path));
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("syncing", e);
        }
    }

    /**
     * One entry with its data; empty if it is gone.
     *
     * @param watcher if not null, set on the entry: it fires when the entry changes or goes after this read
     */
    Optional<QueueEntry> read(String lockPath, EntryName name, Watcher watcher) {
        ZkGateway.NodeContent node;
        try {
            node = wire.call("reading an entry", () -> wire.data(lockPath + "/" + name.node(), watcher));
        } catch (KeeperException.NoNodeException gone) {
            return Optional.empty();
        } catch (KeeperException e) {
            throw Unavailable.zooKeeperAnswered("reading an entry", e);
        }
        return Optional.of(entry(name, node));
    }

    /** Several entries read at once (pipelined); gone ones are left out. Keeps the order given. */
    List<QueueEntry> readAll(String lockPath, List<EntryName> names) {
        List<Located> at = new ArrayList<>(names.size());
        for (EntryName n : names) {
            at.add(new Located(lockPath, n));
        }
        List<QueueEntry> out = new ArrayList<>(names.size());
        for (Optional<QueueEntry> e : readEach(at)) {
            e.ifPresent(out::add);
        }
        return out;
    }

    /** An entry and the lock it is queued on. */
    record Located(String lockPath, EntryName name) {
        String path() {
            return lockPath + "/" + name.node();
        }
    }

    /**
     * Entries of any locks read at once: every read sent before the first answer is waited for
     * (pipelined on the session), so N entries cost one round trip, not N. Each answer is the
     * entry, or empty if it is gone; in the order given.
     */
    List<Optional<QueueEntry>> readEach(List<Located> entries) {
        List<CompletableFuture<ZkGateway.NodeContent>> reads = new ArrayList<>(entries.size());
        for (Located e : entries) {
            reads.add(wire.data(e.path(), null));
        }
        List<Optional<QueueEntry>> out = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            CompletableFuture<ZkGateway.NodeContent> sent = reads.get(i);
            Located e = entries.get(i);
            ZkGateway.NodeContent node;
            try {
                // The first attempt was pipelined above; a connection loss sends it again alone.
                node = wire.call("reading an entry", new Supplier<>() {
                    private boolean first = true;

                    @Override
                    public CompletableFuture<ZkGateway.NodeContent> get() {
                        if (first) {
                            first = false;
                            return sent;
                        }
                        return wire.data(e.path(), null);
                    }
                });
            } catch (KeeperException.NoNodeException gone) {
                out.add(Optional.empty());
                continue;
            } catch (KeeperException ex) {
                throw Unavailable.zooKeeperAnswered("reading an entry", ex);
            }
            out.add(Optional.of(entry(e.name(), node)));
        }
        return out;
    }

    /** What one multi of conditional writes ({@link #writeEach}) did. */
    sealed interface WrittenAll {}

    /** Every write was applied, in one transaction. */
    record AllWritten() implements WrittenAll {}

    /** Nothing was written: the entry of write {@code index} changed or went since it was read. */
    record OneChanged(int index) implements WrittenAll {}

    /**
     * Conditional writes on the versions read, all in one multi: one transaction (one log write on
     * each server) for all of them, or none applied. Sent once ({@link ZkWire#callOnce}): a lost
     * answer is {@link ZkWire.AnswerLost}, for the caller to read back.
     *
     * @param at where each entry is (its lock and name)
     * @param entries the entries as read, whose versions are the writes' conditions
     * @param data each entry's new data
     * @return {@link AllWritten}, or {@link OneChanged} naming the first write ZooKeeper refused
     *     (a multi stops at its first refused op, so the others were not checked)
     */
    WrittenAll writeEach(List<Located> at, List<QueueEntry> entries, List<byte[]> data) throws ZkWire.AnswerLost {
        List<Op> ops = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            ops.add(wire.setDataOp(at.get(i).path(), data.get(i), entries.get(i).version()));
        }
        try {
            wire.callOnce("writing entries", () -> wire.multi(ops));
            return new AllWritten();
        } catch (KeeperException e) {
            if (e.code() == KeeperException.Code.BADVERSION || e.code() == KeeperException.Code.NONODE) {
                for (int i = 0; i < ops.size(); i++) {
                    if (ops.get(i).getPath().equals(e.getPath())) {
                        return new OneChanged(i);
                    }
                }
            }
            throw Unavailable.zooKeeperAnswered("writing entries", e);
        }
    }

    /**
     * True if {@code e} is still there at the version read: a read, which reaches no ZooKeeper
     * leader and writes no log, where a write on an entry that went would fail and still take a
     * zxid.
     */
    boolean unchanged(String lockPath, QueueEntry e) {
        try {
            Stat stat = wire.call(
                    "reading an entry",
                    () -> wire.exists(lockPath + "/" + e.name().node(), null));
            return stat != null && stat.getVersion() == e.version();
        } catch (KeeperException ex) {
            throw Unavailable.zooKeeperAnswered("reading an entry", ex);
        }
    }

    /**
     * A conditional write on the version read.
     *
     * @return the entry as written, or empty if it changed or went meanwhile
     */
    Optional<QueueEntry> write(String lockPath, QueueEntry e, EntryData data) {
        try {
            Stat stat = wire.call(
                    "writing an entry",
                    () -> wire.setData(lockPath + "/" + e.name().node(), bytes(data), e.version()));
            return Optional.of(e.with(data, stat.getVersion()));
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException changed) {
            return Optional.empty();
        } catch (KeeperException ex) {
            throw Unavailable.zooKeeperAnswered("writing an entry", ex);
        }
    }

    /**
     * Takes an entry over for another replica session: a conditional write that also requires
     * {@code marker} (the new session's) to exist and {@code ahead} (the entry ahead of it) to
     * exist, so that an entry that is first, and so may have been granted on its tie, is never
     * tied elsewhere.
     *
     * @return the entry as written, or empty if it changed or went, or the entry ahead went, meanwhile
     */
    Optional<QueueEntry> writeIfMarkerAndAhead(
            String lockPath, QueueEntry e, EntryData data, String marker, EntryName ahead) {
        try {
            List<OpResult> results = wire.call(
                    "writing an entry",
                    () -> wire.multi(List.of(
                            wire.checkOp(marker, -1),
                            wire.checkOp(lockPath + "/" + ahead.node(), -1),
                            wire.setDataOp(lockPath + "/" + e.name().node(), bytes(data), e.version()))));
            return Optional.of(e.with(
                    data, ((OpResult.SetDataResult) results.get(2)).getStat().getVersion()));
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException changed) {
            return Optional.empty();
        } catch (KeeperException ex) {
            throw Unavailable.zooKeeperAnswered("writing an entry", ex);
        }
    }

    /** What a removal did. */
    enum Removal {
        /** This call removed it. */
        DELETED,
        /** It was gone already. */
        GONE,
        /** It was written since the version given: left in place. */
        CHANGED
    }

    /**
     * Removes an entry and its request's companion in one multi, with {@code extra} ops in the same
     * multi (a finished record, an audit entry).
     *
     * @param version the version read, or -1 for any
     */
    Removal remove(String lockPath, EntryName name, int version, List<Op> extra) throws KeeperException {
        List<Op> ops = removalWith(lockPath, name, version, extra);
        try {
            wire.call("removing an entry", () -> wire.multi(ops));
            return Removal.DELETED;
        } catch (KeeperException e) {
            return removalRefused(lockPath, name, e);
        }
    }

    /**
     * {@link #remove}, sent once: a lost answer is {@link ZkWire.AnswerLost}, for the caller to read
     * back whether it was applied.
     */
    Removal removeOnce(String lockPath, EntryName name, int version, List<Op> extra)
            throws KeeperException, ZkWire.AnswerLost {
        List<Op> ops = removalWith(lockPath, name, version, extra);
        try {
            wire.callOnce("removing an entry", () -> wire.multi(ops));
            return Removal.DELETED;
        } catch (KeeperException e) {
            return removalRefused(lockPath, name, e);
        }
    }

    private List<Op> removalWith(String lockPath, EntryName name, int version, List<Op> extra) {
        List<Op> ops = new ArrayList<>(removalOps(lockPath, name, version));
        ops.addAll(extra);
        return ops;
    }

    /** A removal's multi refused: the entry gone or changed, anything else thrown on. */
    private Removal removalRefused(String lockPath, EntryName name, KeeperException e) throws KeeperException {
        String entryPath = wire.abs(lockPath + "/" + name.node());
        if (entryPath.equals(e.getPath()) && e.code() == KeeperException.Code.NONODE) {
            return Removal.GONE;
        }
        if (entryPath.equals(e.getPath()) && e.code() == KeeperException.Code.BADVERSION) {
            return Removal.CHANGED;
        }
        throw e;
    }

    /** One multi of {@code ops}, sent once ({@link ZkWire#callOnce}). */
    List<OpResult> multiOnce(List<Op> ops) throws KeeperException, ZkWire.AnswerLost {
        return wire.callOnce("writing", () -> wire.multi(ops));
    }

    /** One multi of {@code ops}, waited for. */
    List<OpResult> multiOf(List<Op> ops) throws KeeperException {
        return wire.call("writing", () -> wire.multi(ops));
    }

    QueueEntry entry(EntryName name, ZkGateway.NodeContent node) {
        try {
            return new QueueEntry(
                    name,
                    json.readValue(node.data(), EntryData.class),
                    node.stat().getCzxid(),
                    node.stat().getVersion());
        } catch (IOException e) {
            throw new LockServiceException(
                    ErrorCode.INTERNAL, "entry " + name.node() + " holds data that is not an entry's", e);
        }
    }

    byte[] bytes(EntryData data) {
        try {
            return json.writeValueAsBytes(data);
        } catch (IOException e) {
            throw new IllegalStateException("entry data cannot be written as JSON", e);
        }
    }

    private List<EntryName> queueOrThrow(String lockPath, List<String> children) {
        // The pipelined read failed (the lock znode went, or the connection): read it again alone.
        return children == null ? queue(lockPath) : EntryName.inQueueOrder(children);
    }

    /** A multi's refusal about the data; a lost answer (or any other failure) is passed on for the call to retry. */
    private static KeeperException refusal(Throwable failure) {
        if (failure == null) {
            return null;
        }
        Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
        if (cause instanceof KeeperException ke && !Failures.isAnswerLost(ke)) {
            return ke;
        }
        throw new CompletionException(cause);
    }
}

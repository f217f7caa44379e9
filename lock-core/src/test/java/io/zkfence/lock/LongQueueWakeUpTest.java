package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A waiter in a long queue (more than {@link Ahead#WINDOW} children) whose predecessor goes: it
 * reads the lock's release record and its own node instead of the child list, and is granted only
 * once ZooKeeper shows every entry ahead gone, in whatever order they leave: ahead of the
 * predecessor while it waits, the predecessor giving up or losing its session while an older entry
 * still holds, a record naming an entry before the predecessor or one from long ago, its own node
 * deleted meanwhile. Deterministic: one client on {@link InProcessZooKeeper}, the other processes'
 * entries made and removed by the test in the order each case needs, each step once the waiter
 * watches what the case expects. Plain acquires and cohort nodes alike.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LongQueueWakeUpTest {

    private static final String ROOT = "/zkfence/locks";
    private static final String LOCK = "long";
    /** Other processes: one session, their GUID ending in "lock" as zkfence's do. */
    private static final long OTHERS = 0x2002;

    private static final String OTHER_PREFIX = "q-otherprocess000000lock-";
    /** Entries ahead of the waiter: more than the window, so the queue is long. */
    private static final int AHEAD = 20;

    enum Mode {
        PLAIN,
        COHORT
    }

    /** A lock whose queue holds {@link #AHEAD} entries of other processes, oldest (the holder) first. */
    private static final class Queue {
        final World world = new World();
        final String path = LockPaths.lockPath(ROOT, LOCK);
        final InProcessZooKeeper zk = new InProcessZooKeeper(world, path);
        final LockRuntime rt = world.runtime(
                zk, LockClientConfig.builder().rootPath(ROOT).ownerId("waiter").build());
        final LockClient client = new LockClient(rt);
        final List<String> entries = new ArrayList<>();
        final FencedLock lock;
        /** The queue as it was when the waiter's acquire returned, and the waiter's node then. */
        final AtomicReference<List<String>> queueAtGrant = new AtomicReference<>();

        final AtomicReference<String> grantedNode = new AtomicReference<>();
        final AtomicBoolean granted = new AtomicBoolean();
        /** The entry before all others, if asked for. */
        String old;

        Queue(Mode mode) {
            this(mode, false);
        }

        /** With {@code oldEntry}, one more entry before them all, for the test to release first. */
        Queue(Mode mode, boolean oldEntry) {
            if (oldEntry) {
                old = path + "/" + zk.createNow(path, OTHER_PREFIX, OTHERS);
            }
            for (int i = 0; i < AHEAD; i++) {
                entries.add(zk.createNow(path, OTHER_PREFIX, OTHERS));
            }
            FencedLock plain = client.lock(LOCK);
            lock = mode == Mode.COHORT ? plain.withCohort() : plain;
        }

        String entry(int i) {
            return path + "/" + entries.get(i);
        }

        /** The waiter: acquires, notes the queue as it finds it, releases. */
        void waiter() {
            try (Lease lease = lock.acquire()) {
                granted.set(true);
                queueAtGrant.set(zk.childrenNow(path));
                grantedNode.set(lease.nodePath().substring(path.length() + 1));
            }
        }

        /**
         * Runs the waiter beside {@code steps}, the other processes' side, until all is at rest. Steps
         * that fail close the client, so that the waiter wakes and the failure is reported.
         */
        void run(World.Caller steps) {
            world.run(this::waiter, () -> {
                try {
                    steps.run();
                } catch (Throwable t) {
                    client.close();
                    throw t;
                }
            });
            assertThat(queueAtGrant.get())
                    .as("the queue when the waiter was granted: its own node alone")
                    .containsExactly(grantedNode.get());
            assertThat(zk.nodesOfClient()).as("nodes of the client left").isEmpty();
        }

        void assertNotGranted() {
            assertThat(granted)
                    .as("granted while an older entry still holds or waits")
                    .isFalse();
        }

        String lastRecord() {
            return ReleaseRecord.decode(zk.dataNow(path)).orElse("(none)");
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aWaiterIsGrantedOnThePredecessorsReleaseRecordWithOneRoundTripOfTwoSmallReads(Mode mode) {
        Queue q = new Queue(mode);
        AtomicInteger mark = new AtomicInteger();
        q.run(() -> {
            q.zk.awaitWatched(q.entry(AHEAD - 1));
            // The entries ahead of the predecessor leave while it waits; nobody watches them.
            for (int i = 0; i < AHEAD - 1; i++) {
                q.zk.releaseAs(q.entry(i)).join();
            }
            q.assertNotGranted();
            mark.set(q.zk.readsSent());
            q.zk.releaseAs(q.entry(AHEAD - 1)).join();
        });
        String own = q.path + "/" + q.grantedNode.get();
        assertThat(q.zk.readsSince(mark.get()))
                .as("reads after the predecessor released: the record and our node, no child list")
                .startsWith("read " + q.path, "read " + own)
                .noneMatch(r -> r.startsWith("children"));
        assertThat(q.rt.stats.queueChecks.sum()).isEqualTo(2);
        assertThat(q.lastRecord()).as("the waiter's own release is recorded").isEqualTo(q.grantedNode.get());
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aPredecessorThatGivesUpWhileTheHolderHoldsHandsTheWatchToTheEntryAheadOfIt(Mode mode) {
        Queue q = new Queue(mode);
        AtomicInteger mark = new AtomicInteger();
        q.run(() -> {
            q.zk.awaitWatched(q.entry(AHEAD - 1));
            mark.set(q.zk.readsSent());
            q.zk.deleteAs(q.entry(AHEAD - 1)).join(); // gives up: no record
            q.zk.awaitWatched(q.entry(AHEAD - 2));
            assertThat(q.zk.readsSince(mark.get()))
                    .as("the record, our node, then the next entry ahead: no child list")
                    .containsExactly(
                            "read " + q.path, "read " + q.zk.nodesOfClient().get(0), "watch " + q.entry(AHEAD - 2));
            q.assertNotGranted();
            // The rest give up too, out of order: the ones ahead of the watched entry first.
            for (int i = AHEAD - 3; i >= 1; i--) {
                q.zk.deleteAs(q.entry(i)).join();
            }
            q.zk.deleteAs(q.entry(AHEAD - 2)).join();
            // The probe finds the next remembered entry gone too: the queue is read, the holder found.
            q.zk.awaitWatched(q.entry(0));
            q.assertNotGranted();
            q.zk.releaseAs(q.entry(0)).join();
        });
        assertThat(q.rt.stats.childrenReads.sum())
                .as("only after two entries went in a row without a record")
                .isGreaterThanOrEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aRecordNamingAnEntryBeforeThePredecessorSettlesTheQueueUpToThatEntry(Mode mode) {
        Queue q = new Queue(mode);
        AtomicInteger mark = new AtomicInteger();
        q.run(() -> {
            q.zk.awaitWatched(q.entry(AHEAD - 1));
            for (int i = 0; i < AHEAD - 2; i++) {
                q.zk.releaseAs(q.entry(i)).join();
            }
            mark.set(q.zk.readsSent());
            // The predecessor gives up while the entry ahead of it holds: the record names the one
            // that released before that.
            q.zk.deleteAs(q.entry(AHEAD - 1)).join();
            q.zk.awaitWatched(q.entry(AHEAD - 2));
            assertThat(q.zk.readsSince(mark.get())).noneMatch(r -> r.startsWith("children"));
            q.assertNotGranted();
            q.zk.releaseAs(q.entry(AHEAD - 2)).join();
        });
        assertThat(q.rt.stats.childrenReads.sum())
                .as("the read pipelined with the create, and no other")
                .isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aPredecessorWhoseSessionExpiredIsNotTakenForAReleaseByARecordFromLongAgo(Mode mode) {
        Queue q = new Queue(mode, true);
        q.run(() -> {
            // A node that was granted and released before every entry now queued.
            q.zk.releaseAs(q.old).join();
            q.zk.awaitWatched(q.entry(AHEAD - 1));
            q.zk.deleteAs(q.entry(AHEAD - 1)).join(); // its session expired: no record
            q.zk.awaitWatched(q.entry(AHEAD - 2));
            q.assertNotGranted();
            for (int i = 0; i < AHEAD - 1; i++) {
                q.zk.releaseAs(q.entry(i)).join();
            }
        });
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aWaiterWhoseOwnNodeWasDeletedIsNotGrantedOnARecordAndQueuesAgain(Mode mode) {
        Queue q = new Queue(mode);
        AtomicReference<String> deleted = new AtomicReference<>();
        q.run(() -> {
            q.zk.awaitWatched(q.entry(AHEAD - 1));
            for (int i = 0; i < AHEAD - 1; i++) {
                q.zk.releaseAs(q.entry(i)).join();
            }
            deleted.set(q.zk.nodesOfClient().get(0));
            q.zk.deleteAs(deleted.get()).join(); // an operator removes the waiter's node
            q.zk.releaseAs(q.entry(AHEAD - 1)).join();
        });
        assertThat(q.path + "/" + q.grantedNode.get())
                .as("granted on a new node")
                .isNotEqualTo(deleted.get());
    }
}

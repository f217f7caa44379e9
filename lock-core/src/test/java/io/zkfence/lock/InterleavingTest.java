package io.zkfence.lock;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.state.ConnectionState;
import org.jetbrains.lincheck.Lincheck;
import org.jetbrains.lincheck.LincheckSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * lock-core's acquisition, cohort and close paths under a controlled scheduler: Lincheck's model
 * checker runs each scenario many times, each time choosing how its threads interleave (at every
 * monitor, park, wait and shared field), and fails with the interleaving that broke an invariant,
 * or that left a thread waiting for ever.
 *
 * <p>The threads are the callers of a scenario and the three {@link World} lanes: ZooKeeper's
 * event thread, the client's timer and its event thread. ZooKeeper is {@link InProcessZooKeeper}
 * (a real server's network threads cannot be scheduled), which answers on its lane in the order
 * requests were sent; timers fire whenever their lane runs (delays only matter to liveness).
 * Lincheck's clock stands still, so a timed wait only ends when what it waits for does, except a
 * zero timeout, which gives up at once unless the grant is already there.
 *
 * <p>Each scenario ends when the world is at rest (every caller returned, no lane has work) and then
 * checks what must hold whatever the interleaving: no queue node of the client left behind, no
 * acquisition or grant left in the client's registry, no cohort left in its map, at most one turn
 * or lease inside a critical section at a time, and tokens that never go down from one holder to
 * the next.
 *
 * <p><b>Issue 28's race: not found by the model checker (yet).</b> With the fix of commit 4d7d12e
 * undone on a scratch branch of 2026-11-27 (the acquisition's {@code sessionLost} guarded by
 * {@code result.isDone()} instead of the phase, a try that found the lock taken completing its
 * result only once its node was deleted, {@code moveTo} letting DONE go back to BACKING_OFF),
 * issue 28's own deterministic reproduction ({@code AcquisitionFailureTest}) failed, and so did
 * this scenario's earlier form (the LOST at any moment) run 3,000 times on plain threads, without
 * a scheduler: "the try sent a create after it answered; ZooKeeper now:
 * [/zkfence/locks/taken/q-...lock-0000000004]". Under the model checker it did not fail: in that
 * earlier form (lock-core logging to the console) Lincheck reached the restart after the answer
 * but reported "Concurrent test has hung" with no interleaving (the log line blocked on the test
 * runner's console, which a thread it does not schedule drains); in the form below (logs in memory, the LOST pinned after the try's delete
 * is sent) 400 and 4,000 interleavings passed. The invariants catch the race when it happens,
 * but Lincheck's bounded exploration did not reach the order it needs; letting a seed choose each
 * lane's next step (a deterministic simulation) is the next thing to try.
 */
class InterleavingTest {

    /** Interleavings explored per scenario: together the scenarios take well under a minute. */
    private static final int INVOCATIONS = 400;

    private static final String ROOT = "/zkfence/locks";
    /** Another process's session and its GUID (22 characters, ending in "lock" as zkfence's do). */
    private static final long OTHER_SESSION = 0x2002;

    private static final String OTHER_PREFIX = "q-otherprocess000000lock-";

    static {
        // The first virtual thread of a JVM starts the JDK's unblocker thread; under the model
        // checker that thread would be taken for one of the test's and waited for, for ever.
        Thread.ofVirtual().unstarted(() -> {});
    }

    /** Where lock-core's log lines go while the model checker runs; see {@link #logInMemory}. */
    private static final ListAppender<ILoggingEvent> LOG = new ListAppender<>();

    /**
     * lock-core logs into memory while the model checker runs: the console is the test runner's,
     * drained by a thread the checker does not schedule, so a line written from a scheduled thread
     * could block where the checker cannot see it (the scenarios log: a lost session, a retry).
     */
    @BeforeAll
    static void logInMemory() {
        Logger lockCore = (Logger) LoggerFactory.getLogger("io.zkfence.lock");
        LOG.setContext(lockCore.getLoggerContext());
        LOG.start();
        lockCore.addAppender(LOG);
        lockCore.setAdditive(false);
    }

    @AfterAll
    static void logToConsoleAgain() {
        Logger lockCore = (Logger) LoggerFactory.getLogger("io.zkfence.lock");
        lockCore.setAdditive(true);
        lockCore.detachAppender(LOG);
        LOG.stop();
    }

    /**
     * Runs {@code scenario} under Lincheck's model checker, {@link #INVOCATIONS} interleavings.
     *
     * <p>Not through {@code Lincheck.runConcurrentTest}: its settings bound a loop at 50 iterations,
     * past which it takes the loop for one that never ends, and a caller parked on a future wakes
     * spuriously at every step of the model checker, so a caller waiting while a lane works through
     * a long answer (a queue read parses every name) was reported as a hang that was none. Lincheck
     * 3.7 takes other bounds only through its internal entry point (Kotlin {@code internal}, public
     * in the bytecode), which the version pinned in the parent pom has.
     */
    private static void explore(Runnable scenario) {
        Lincheck.runConcurrentTestInternal$lincheck(INVOCATIONS, new LincheckSettings(true, 10, 1_000, 20), scenario);
    }

    /**
     * Issue 28: a try that found the lock taken has answered; a Curator LOST that arrives while its
     * node is still being deleted must not send it back into the queue. Another process holds the
     * lock, and the try's pre-check reads a server that has not seen its node yet, so the try
     * queues behind it and gives up; the holder releases meanwhile, so a node queued after the
     * answer would be granted to nobody.
     *
     * <p>With the fix undone this scenario fails on plain threads but Lincheck has not found the
     * failing order; see the class comment.
     */
    @Test
    void aTryThatAnsweredTakenNeverQueuesAgainWhateverASessionLossInterleaves() {
        explore(() -> {
            Scenario s = new Scenario("taken");
            String holder = s.zk.createNow(s.path("taken"), OTHER_PREFIX, OTHER_SESSION);
            s.zk.lagNextChildrenRead(s.path("taken"));
            FencedLock lock = s.client.lock("taken");
            AtomicInteger createsAtAnswer = new AtomicInteger(-1);
            s.world.run(
                    () -> {
                        Optional<Lease> got = lock.tryAcquire();
                        createsAtAnswer.set(s.zk.creates());
                        got.ifPresent(Lease::release);
                    },
                    () -> {
                        // Curator gives the session up while the try's node is being deleted.
                        s.zk.awaitOwnDeleteSent();
                        new SessionMonitor(s.rt).stateChanged(null, ConnectionState.LOST);
                    },
                    () -> s.zk.deleteAs(s.path("taken") + "/" + holder).join());
            check(s.zk.creates() == createsAtAnswer.get(), "the try sent a create after it answered", s);
            s.checkAtRest();
        });
    }

    /**
     * Two plain acquires of one client (one of them giving up at once unless granted) beside
     * another process: one holder at a time, tokens going up, nothing left behind.
     */
    @Test
    void acquisitionsExcludeEachOtherAndLeaveNothingBehind() {
        explore(() -> {
            Scenario s = new Scenario("plain");
            FencedLock lock = s.client.lock("plain");
            CriticalSection section = new CriticalSection();
            s.world.run(
                    () -> {
                        try (Lease lease = lock.acquire()) {
                            section.run(lease);
                        }
                    },
                    () -> {
                        try (Lease lease = lock.acquire(Duration.ZERO)) {
                            section.run(lease);
                        } catch (AcquireTimeoutException notGranted) {
                            // gave up: its node must go, which checkAtRest checks
                        }
                    },
                    () -> s.otherProcessTakesAndReleases("plain"));
            section.check(s);
            s.checkAtRest();
        });
    }

    /**
     * A waiter in a long queue (more than {@link Ahead#WINDOW} entries ahead of it, so it wakes on
     * the release record, not on a read of the queue) whose predecessor gives up at any moment
     * while the entries ahead of it are granted and release one after another: whatever the
     * interleaving, it is granted only once every entry ahead is gone, and leaves nothing behind.
     */
    @Test
    void aWaiterInALongQueueIsGrantedOnlyOnceEveryEntryAheadIsGone() {
        explore(() -> {
            Scenario s = new Scenario("long");
            String path = s.path("long");
            List<String> ahead = new ArrayList<>();
            for (int i = 0; i <= Ahead.WINDOW + 1; i++) {
                ahead.add(path + "/" + s.zk.createNow(path, OTHER_PREFIX, OTHER_SESSION));
            }
            String predecessor = ahead.remove(ahead.size() - 1);
            FencedLock lock = s.client.lock("long");
            List<String> queueAtGrant = new ArrayList<>();
            s.world.run(
                    () -> {
                        try (Lease lease = lock.acquire()) {
                            queueAtGrant.addAll(s.zk.childrenNow(path));
                        }
                    },
                    () -> s.zk.deleteAs(predecessor).join(), // gives up: no release record
                    () -> {
                        for (String entry : ahead) { // each granted in turn, then released
                            s.zk.releaseAs(entry).join();
                        }
                    });
            check(queueAtGrant.size() == 1, "granted while entries ahead remained: " + queueAtGrant, s);
            s.checkAtRest();
        });
    }

    /**
     * Three threads of one client in cohort mode (an acquire, a try, an acquire giving up at once
     * unless granted) beside another process: one turn at a time, tokens never going down, the
     * cohort retired and its node gone at the end.
     */
    @Test
    void cohortTurnsExcludeEachOtherAndTheCohortRetiresClean() {
        explore(() -> {
            Scenario s = new Scenario("hot");
            FencedLock lock = s.client.lock("hot").withCohort(2, Duration.ofMinutes(1));
            CriticalSection section = new CriticalSection();
            s.world.run(
                    () -> {
                        try (Lease lease = lock.acquire()) {
                            section.run(lease);
                        }
                    },
                    () -> lock.tryAcquire().ifPresent(lease -> {
                        try (lease) {
                            section.run(lease);
                        }
                    }),
                    () -> {
                        try (Lease lease = lock.acquire(Duration.ZERO)) {
                            section.run(lease);
                        } catch (AcquireTimeoutException notGranted) {
                            // gave up: a node it queued for nobody must go, which checkAtRest checks
                        }
                    },
                    () -> s.otherProcessTakesAndReleases("hot"));
            section.check(s);
            s.checkAtRest();
        });
    }

    /**
     * Closing the client while a plain waiter and a cohort waiter queue behind another process:
     * every waiter wakes (granted, or LockClientClosedException), no node of the client stays.
     */
    @Test
    void closingTheClientWakesEveryWaiterAndLeavesNoNode() {
        explore(() -> {
            Scenario s = new Scenario("busy", "hot");
            s.zk.createNow(s.path("busy"), OTHER_PREFIX, OTHER_SESSION);
            s.zk.createNow(s.path("hot"), OTHER_PREFIX, OTHER_SESSION);
            s.world.run(
                    () -> waitUntilClosed(s.client.lock("busy")),
                    () -> waitUntilClosed(s.client.lock("hot").withCohort()),
                    s.client::close);
            s.checkAtRest();
        });
    }

    private static void waitUntilClosed(FencedLock lock) {
        try {
            lock.acquire().release();
            throw new AssertionError("granted " + lock + " while another process holds it");
        } catch (LockClientClosedException expected) {
            // woken by the close
        }
    }

    private static void check(boolean holds, String what, Scenario s) {
        if (!holds) {
            throw new AssertionError(what + "; ZooKeeper now: " + s.zk.nodesOfClient());
        }
    }

    /** One client on an in-process ZooKeeper, with the world that runs its threads. */
    private static final class Scenario {

        final World world = new World();
        final InProcessZooKeeper zk;
        final LockRuntime rt;
        final LockClient client;

        Scenario(String... locks) {
            zk = new InProcessZooKeeper(
                    world,
                    List.of(locks).stream()
                            .map(l -> LockPaths.lockPath(ROOT, l))
                            .toArray(String[]::new));
            rt = world.runtime(
                    zk,
                    LockClientConfig.builder()
                            .rootPath(ROOT)
                            .ownerId("interleaving")
                            .build());
            client = new LockClient(rt);
        }

        String path(String lock) {
            return LockPaths.lockPath(ROOT, lock);
        }

        /** Another process queues on {@code lock} and, once its create is answered, leaves again. */
        void otherProcessTakesAndReleases(String lock) {
            String name = zk.createAs(path(lock), OTHER_PREFIX, OTHER_SESSION).join();
            zk.deleteAs(path(lock) + "/" + name).join();
        }

        /** What must hold once the world is at rest, whatever the interleaving was. */
        void checkAtRest() {
            check(zk.nodesOfClient().isEmpty(), "queue nodes of the client left behind", this);
            check(rt.registry.acquisitions().isEmpty(), "acquisitions left in the registry", this);
            check(rt.registry.grants().isEmpty(), "grants left in the registry", this);
            check(rt.cohorts.isEmpty(), "cohorts left in the client's map: " + rt.cohorts, this);
        }
    }

    /** The resource a lock protects: who is inside, and the tokens of those who went in, in order. */
    private static final class CriticalSection {

        private final AtomicInteger inside = new AtomicInteger();
        private final List<String> violations = new ArrayList<>();
        private final List<Long> tokens = new ArrayList<>();

        void run(Lease lease) {
            if (inside.incrementAndGet() != 1) {
                violated("two holders inside at once (token " + lease.token() + ")");
            }
            synchronized (this) {
                if (!tokens.isEmpty() && tokens.get(tokens.size() - 1) > lease.token()) {
                    violations.add("token " + lease.token() + " after " + tokens);
                }
                tokens.add(lease.token());
            }
            inside.decrementAndGet();
        }

        private synchronized void violated(String what) {
            violations.add(what);
        }

        synchronized void check(Scenario s) {
            InterleavingTest.check(violations.isEmpty(), "critical section: " + violations, s);
        }
    }
}

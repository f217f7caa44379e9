package io.zkfence.recipes.leader;

import io.zkfence.fencing.internal.Backoff;
import io.zkfence.lock.AcquireInterruptedException;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClientClosedException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One candidate's life in an election, on a thread of its own: queue for the lock (blocking
 * acquire), serve the term until it is lost, given up or the election closes, report each step
 * to the listeners on a second, single event thread, and queue again.
 *
 * <p>Start, close and the worker's passage from "acquiring" to "serving" are ordered by one
 * monitor, so a close that races with a grant either interrupts the acquire (which then leaves
 * the queue) or is seen by the worker right after the grant (which then releases it).
 */
final class Candidate {

    // Logged under the public class: that is the name users configure.
    private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);
    /** Between failed attempts to join the queue (ZooKeeper unreachable or refusing). */
    private static final Backoff BACKOFF = Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(5));
    /** How long {@link #close()} waits, beyond the revoke timeout, for a release to be confirmed. */
    private static final Duration CLOSE_MARGIN = Duration.ofSeconds(15);

    private final FencedLock lock;
    private final List<LeadershipListener> listeners;
    private final Duration revokeTimeout;
    private final Thread worker;
    private final ExecutorService events;
    private volatile Thread eventThread;

    private final Object guard = new Object();
    // Guarded by guard.
    private boolean started;
    private boolean closed;
    private boolean acquiring;
    /** Written by the candidate's thread, read by any: volatile, not guarded. */
    private volatile Leadership current;

    Candidate(FencedLock lock, List<LeadershipListener> listeners, Duration revokeTimeout) {
        this.lock = lock;
        this.listeners = List.copyOf(listeners);
        this.revokeTimeout = revokeTimeout;
        this.worker = Thread.ofPlatform()
                .daemon()
                .name("zkfence-election-" + lock.name())
                .unstarted(this::run);
        this.events = Executors.newSingleThreadExecutor(r -> {
            Thread t = Thread.ofPlatform()
                    .daemon()
                    .name("zkfence-election-events-" + lock.name())
                    .unstarted(r);
            eventThread = t;
            return t;
        });
    }

    /** The term being served, until its end has been handled; null while waiting in line. */
    Leadership current() {
        return current;
    }

    String lockName() {
        return lock.name();
    }

    void start() {
        synchronized (guard) {
            if (closed) {
                throw new IllegalStateException("leader election '" + lockName() + "' is closed");
            }
            if (started) {
                throw new IllegalStateException("leader election '" + lockName() + "' is already started");
            }
            started = true;
            worker.start();
        }
    }

    void close() {
        Leadership term;
        boolean wasStarted;
        synchronized (guard) {
            if (closed) {
                return;
            }
            closed = true;
            wasStarted = started;
            term = current;
            if (acquiring) {
                worker.interrupt(); // the only way out of a blocking acquire; it leaves the queue
            }
            guard.notifyAll(); // out of a back-off pause
        }
        if (!wasStarted) {
            events.shutdown();
            return;
        }
        if (term != null) {
            term.requestEnd(Leadership.EndCause.CLOSE);
        }
        Thread self = Thread.currentThread();
        if (self == worker || self == eventThread) {
            return; // called from a listener: the worker finishes on its own
        }
        try {
            worker.join(revokeTimeout.plus(CLOSE_MARGIN).toMillis());
            if (worker.isAlive()) {
                log.warn(
                        "leader election '{}' did not finish closing within {}; it goes on in the background",
                        lockName(),
                        revokeTimeout.plus(CLOSE_MARGIN));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- the candidate's thread ----

    private void run() {
        int failures = 0;
        try {
            while (true) {
                synchronized (guard) {
                    if (closed) {
                        return;
                    }
                    acquiring = true;
                }
                Lease lease;
                try {
                    lease = lock.acquire();
                } catch (AcquireInterruptedException e) {
                    Thread.interrupted();
                    continue; // close() interrupted us: the loop head sees it
                } catch (LockClientClosedException e) {
                    log.error("leader election '{}' stops: its lock client is closed", lockName(), e);
                    return;
                } catch (RuntimeException e) {
                    long delayMs = BACKOFF.delay(++failures).toMillis();
                    log.warn(
                            "leader election '{}' could not join the queue; retrying in {} ms", lockName(), delayMs, e);
                    pause(delayMs);
                    continue;
                } finally {
                    synchronized (guard) {
                        acquiring = false;
                    }
                }
                failures = 0;
                Leadership term;
                synchronized (guard) {
                    Thread.interrupted(); // an interrupt from a close() that raced with the grant
                    if (closed) {
                        lease.release();
                        return;
                    }
                    term = new Leadership(lockName(), lease);
                    current = term;
                }
                serve(term);
            }
        } finally {
            events.shutdown();
        }
    }

    /** Leads one term until it ends, and reports its end. */
    private void serve(Leadership term) {
        Lease lease = term.lease();
        log.info("elected leader of '{}' with term {}", lockName(), term.term());
        dispatch(l -> l.elected(term));
        lease.addListener((l, from, to) -> reportConnection(term, to));
        reportConnection(term, lease.state()); // a change before the listener was added
        lease.ended().thenAccept(s -> term.requestEnd(Leadership.EndCause.LEASE_ENDED));

        Leadership.EndCause cause = term.awaitEndRequest();
        term.stopReporting();
        if (cause == Leadership.EndCause.LEASE_ENDED) {
            // Ended without us: LOST (session expired, node deleted), or RELEASED when the lock
            // client was closed under the election. Either way the term was taken away, so the
            // listeners hear lost(); ended() reports the lease's real final state, as state() does.
            LeaseState end = lease.ended().toCompletableFuture().join();
            log.warn(
                    "leader of '{}' lost term {} ({}): {}",
                    lockName(),
                    term.term(),
                    end,
                    lease.endReason().orElse("lease ended"));
            // Not released: the lease is over already (lock-core deleted what was left of its
            // node), and an unreleased handle keeps reporting LOST rather than RELEASED.
            awaitListeners(term, "lost()", dispatch(l -> l.lost(term)));
            current = null; // only now: leadership() shows the term until its end has been handled
            term.finish(end);
            return;
        }
        log.info(
                "leader of '{}' gives up term {} ({})",
                lockName(),
                term.term(),
                cause == Leadership.EndCause.STEP_DOWN ? "stepped down" : "election closed");
        awaitListeners(term, "revoked()", dispatch(l -> l.revoked(term)));
        lease.release();
        current = null;
        // LOST if the lease was lost while revoked() ran; RELEASED otherwise.
        term.finish(lease.ended().toCompletableFuture().getNow(LeaseState.RELEASED));
    }

    private void reportConnection(Leadership term, LeaseState to) {
        if (term.report(to)) {
            if (to == LeaseState.SUSPECT) {
                dispatch(l -> l.suspended(term));
            } else {
                dispatch(l -> l.resumed(term));
            }
        }
    }

    /** Waits, up to the revoke timeout, for listener calls to return. */
    private void awaitListeners(Leadership term, String what, Future<?> calls) {
        try {
            calls.get(revokeTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            log.warn(
                    "{} of '{}' term {} did not return within the revoke timeout {}; going on without it",
                    what,
                    lockName(),
                    term.term(),
                    revokeTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            // dispatch() catches and logs listener failures; nothing else can fail here
        }
    }

    /** Runs each listener on the event thread, in order; one that throws does not stop the others. */
    private Future<?> dispatch(Consumer<LeadershipListener> call) {
        try {
            return events.submit(() -> {
                for (LeadershipListener l : listeners) {
                    try {
                        call.accept(l);
                    } catch (RuntimeException e) {
                        log.error("leadership listener of '{}' failed", lockName(), e);
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(null); // the election is closed: nobody to tell
        }
    }

    private void pause(long millis) {
        synchronized (guard) {
            if (closed) {
                return;
            }
            try {
                guard.wait(millis);
            } catch (InterruptedException e) {
                Thread.interrupted();
            }
        }
    }
}

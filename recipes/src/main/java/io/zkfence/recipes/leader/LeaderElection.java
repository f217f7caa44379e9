package io.zkfence.recipes.leader;

import io.zkfence.lock.AcquireInterruptedException;
import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
 * Leader election on a fenced lock: one leader per election name, FIFO succession, and a term
 * number that is the leader's fencing token.
 *
 * <pre>{@code
 * LeaderElection election = LeaderElection.builder(lockClient, "billing-scheduler")
 *         .listener(new LeadershipListener() {
 *             public void elected(Leadership l) { scheduler.start(l.term()); }
 *             public void lost(Leadership l)    { scheduler.stopNow(); }
 *         })
 *         .build();
 * election.start();
 * ...
 * election.close();   // leaves the election; a leader is revoked first, then the next one is elected
 * }</pre>
 *
 * <h2>How it works</h2>
 *
 * <p>Each candidate is a blocking {@link FencedLock#acquire()} on the lock named after the
 * election, made by the election's own thread and kept for as long as the candidate leads. The
 * lock's queue is the line of candidates: the head leads, and when it goes (steps down, closes,
 * or its ZooKeeper session expires) the next in line is elected — FIFO, one wake-up per change.
 * The lease's fencing token is the term, strictly increasing across leaders.
 *
 * <p>A candidate whose term is lost (session expired, node deleted) or that steps down stays a
 * candidate: it joins the queue again at the back. Only {@link #close()} leaves the election.
 * A candidate's session is its {@link LockClient}'s: use one client per process.
 *
 * <p>A deposed leader learns that it lost its term only when its client hears from ZooKeeper;
 * while paused or partitioned it may still believe it leads. Its writes must therefore carry
 * {@link Leadership#term()} to a resource that rejects lower tokens (fencing-jdbc, fencing-s3).
 */
public final class LeaderElection implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);
    private static final Duration MAX_REVOKE_TIMEOUT = Duration.ofMinutes(10);
    private static final long FIRST_BACKOFF_MS = 100;
    private static final long MAX_BACKOFF_MS = 5_000;
    /** How long {@link #close()} waits, beyond the revoke timeout, for a release to be confirmed. */
    private static final Duration CLOSE_MARGIN = Duration.ofSeconds(15);

    private final LockClient client;
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
    private volatile Leadership current;

    private LeaderElection(Builder b) {
        this.client = b.client;
        this.lock = b.client.lock(b.name);
        this.listeners = List.copyOf(b.listeners);
        this.revokeTimeout = b.revokeTimeout;
        this.worker = Thread.ofPlatform().daemon().name("zkfence-election-" + b.name).unstarted(this::run);
        this.events = Executors.newSingleThreadExecutor(r -> {
            Thread t = Thread.ofPlatform().daemon().name("zkfence-election-events-" + b.name).unstarted(r);
            eventThread = t;
            return t;
        });
    }

    /**
     * A builder for a candidate in the election {@code name} on {@code client}'s session.
     *
     * @param client the lock client whose session is this candidate's lease
     * @param name   the election's name; the lock of the same name on that client carries it
     */
    public static Builder builder(LockClient client, String name) {
        return new Builder(client, name);
    }

    /**
     * Who leads the election {@code name}, read from ZooKeeper: owner id and term of the
     * lock's holder, or empty if nobody leads. Needs no candidacy; a snapshot for diagnostics.
     *
     * @throws io.zkfence.lock.CoordinationException if ZooKeeper cannot be read in time
     * @throws IllegalArgumentException               if {@code name} is not a valid lock name
     */
    public static Optional<Leader> currentLeader(LockClient client, String name) {
        Objects.requireNonNull(client, "client");
        LockInfo info = client.inspect(name);
        return info.holder().map(e -> new Leader(e.ownerId(), e.token()));
    }

    /** The election's name. */
    public String name() {
        return lock.name();
    }

    /**
     * Enters the election: joins the line of candidates at the back and returns at once. The
     * listeners hear {@link LeadershipListener#elected} when this candidate's turn comes.
     *
     * @throws IllegalStateException if the election was already started or is closed
     */
    public void start() {
        synchronized (guard) {
            if (closed) {
                throw new IllegalStateException("leader election '" + name() + "' is closed");
            }
            if (started) {
                throw new IllegalStateException("leader election '" + name() + "' is already started");
            }
            started = true;
            worker.start();
        }
    }

    /** True while this candidate leads with its lease {@link LeaseState#HELD}. A local check. */
    public boolean isLeader() {
        Leadership term = current;
        return term != null && term.isValid();
    }

    /**
     * This candidate's current term, from its election until its end has been handled (so also
     * while {@link LeadershipListener#revoked} runs); empty while it waits in line.
     */
    public Optional<Leadership> leadership() {
        return Optional.ofNullable(current);
    }

    /** Who leads this election, read from ZooKeeper; see {@link #currentLeader(LockClient, String)}. */
    public Optional<Leader> currentLeader() {
        return currentLeader(client, name());
    }

    /**
     * Leaves the election. A leader's term is revoked ({@link LeadershipListener#revoked} runs,
     * up to the revoke timeout) and released, so the next candidate is elected at once; a waiting
     * candidate leaves the line. Waits for that to finish, except when called from a listener.
     * Idempotent.
     */
    @Override
    public void close() {
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
                log.warn("leader election '{}' did not finish closing within {}; it goes on in the background", name(),
                        revokeTimeout.plus(CLOSE_MARGIN));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        Leadership term = current;
        return "LeaderElection{" + name() + (term == null ? ", waiting" : ", leading term " + term.term()) + "}";
    }

    // ---- the candidate's thread ----

    private void run() {
        long backoffMs = FIRST_BACKOFF_MS;
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
                } catch (IllegalStateException e) {
                    log.error("leader election '{}' stops: its lock client is closed", name(), e);
                    return;
                } catch (RuntimeException e) {
                    log.warn("leader election '{}' could not join the queue; retrying in {} ms", name(), backoffMs, e);
                    pause(backoffMs);
                    backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
                    continue;
                } finally {
                    synchronized (guard) {
                        acquiring = false;
                    }
                }
                backoffMs = FIRST_BACKOFF_MS;
                Leadership term;
                synchronized (guard) {
                    Thread.interrupted(); // an interrupt from a close() that raced with the grant
                    if (closed) {
                        lease.release();
                        return;
                    }
                    term = new Leadership(name(), lease);
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
        log.info("elected leader of '{}' with term {}", name(), term.term());
        dispatch(l -> l.elected(term));
        lease.addListener((l, from, to) -> reportConnection(term, to));
        reportConnection(term, lease.state()); // a change before the listener was added
        lease.ended().thenAccept(s -> term.requestEnd(Leadership.EndCause.LOST));

        Leadership.EndCause cause = term.awaitEndRequest();
        term.stopReporting();
        if (cause == Leadership.EndCause.LOST) {
            log.warn("leader of '{}' lost term {}: {}", name(), term.term(), lease.endReason().orElse("lease ended"));
            current = null;
            // Not released: the lease is over already (lock-core deleted what was left of its
            // node), and an unreleased handle keeps reporting LOST rather than RELEASED.
            awaitListeners(term, "lost()", dispatch(l -> l.lost(term)));
            term.finish(LeaseState.LOST);
            return;
        }
        log.info("leader of '{}' gives up term {} ({})", name(), term.term(),
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
            log.warn("{} of '{}' term {} did not return within the revoke timeout {}; going on without it", what, name(),
                    term.term(), revokeTimeout);
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
                        log.error("leadership listener of '{}' failed", name(), e);
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

    /** Builds a {@link LeaderElection}. Not thread-safe. */
    public static final class Builder {

        private final LockClient client;
        private final String name;
        private final List<LeadershipListener> listeners = new ArrayList<>();
        private Duration revokeTimeout = Duration.ofSeconds(10);

        private Builder(LockClient client, String name) {
            this.client = Objects.requireNonNull(client, "client");
            this.name = name;
        }

        /** Adds a listener; listeners are called in the order they were added. */
        public Builder listener(LeadershipListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * How long a term that is given up (step-down, close) waits for
         * {@link LeadershipListener#revoked} to return before it is released anyway. Default 10 s;
         * 1 ms to 10 min.
         */
        public Builder revokeTimeout(Duration revokeTimeout) {
            this.revokeTimeout = revokeTimeout;
            return this;
        }

        /**
         * Validates and builds; the election is not started yet.
         *
         * @throws IllegalArgumentException naming the setting and the rule it breaks (a bad
         *                                  election name is reported as the lock name it is)
         */
        public LeaderElection build() {
            if (name == null) {
                throw new IllegalArgumentException("election name must not be null");
            }
            client.lock(name); // validates the name as a lock name
            Objects.requireNonNull(revokeTimeout, "revokeTimeout must not be null");
            if (revokeTimeout.compareTo(Duration.ofMillis(1)) < 0 || revokeTimeout.compareTo(MAX_REVOKE_TIMEOUT) > 0) {
                throw new IllegalArgumentException("revokeTimeout must be between 1 ms and 10 min, was " + revokeTimeout
                        + " (election '" + name + "')");
            }
            return new LeaderElection(this);
        }
    }
}

package io.zkfence.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A granted lock: the handle {@link FencedLock#acquire()} returns. Close it to release.
 *
 * <h2 id="token-contract">The fencing token</h2>
 *
 * <p>{@link #token()} is the number a protected resource uses to tell the current holder from a
 * former one. Its contract, for successive grants g1, g2 of one lock name on one ZooKeeper
 * ensemble:
 *
 * <pre>{@code
 * assert g2.token() > g1.token();   // strictly increasing, whoever holds, whichever client
 * }</pre>
 *
 * <ul>
 * <li>It holds for the life of the ensemble: after the lock's znode is deleted and re-created
 *     (ZooKeeper deletes an empty container node by itself; an operator may delete it), across
 *     leader changes, and past 2^31 grants. It is a 64-bit value with no wrap.</li>
 * <li>It is the creation zxid of the grant's queue node, returned by the very create that
 *     enqueued it: no extra round trip, and no counter to keep. (ZooKeeper's 10-digit sequence
 *     suffix is not a safe token: it restarts at 0 when the lock znode is re-created and goes
 *     negative after 2^31 creates. It is exposed as {@link #sequence()} for diagnostics only.)</li>
 * <li>A re-entrant acquire by the holding thread returns the same grant, hence the same token.</li>
 * <li>In cohort mode ({@link FencedLock#withCohort(int, java.time.Duration)}, opt-in) the turns
 *     of one client's threads under one queue node share its token: equal within a cohort,
 *     strictly increasing across cohorts. Accepting {@code >=} stays safe (see that method).</li>
 * <li>A resource accepts a write whose token is {@code >=} the highest it has accepted and
 *     rejects a lower one. Equal is accepted so one holder can write many times.</li>
 * </ul>
 *
 * <p>Why it matters, the paused holder:
 *
 * <pre>
 *  time ─────────────────────────────────────────────────────────────────────────────▶
 *  A   acquire → token 33  │ write(33) ✓ │ ░░░ GC pause / VM freeze / partition ░░░ │ write(33) ✗ stale
 *  ZK                      │             │ A's session expires, A's node deleted    │
 *  B                       │             │ acquire → token 34 │ write(34) ✓         │
 *  resource: highest = 33 ─────────────────────────────────────▶ highest = 34: rejects 33
 * </pre>
 *
 * <p>A cannot know it was paused, so no check on A's side closes the gap between its last
 * {@link #checkValid()} and its write landing. Only the resource can, by comparing tokens; that
 * is what zkfence's fencing adapters do.
 *
 * <h2>The lease</h2>
 *
 * <p>The ZooKeeper session is the lease: its TTL is the negotiated session timeout
 * ({@link #ttl()}), renewed by the client's heartbeats. {@link #state()} tells where it is:
 * {@link LeaseState#HELD}; {@link LeaseState#SUSPECT} while the connection is suspended (do not
 * write); {@link LeaseState#LOST} when the session expired, the node was deleted or the
 * max-hold passed; {@link LeaseState#RELEASED}. Call {@link #checkValid()} right before a
 * critical write, and hand {@link #token()} to the write so the resource can fence it.
 *
 * <h2>Handles</h2>
 *
 * <p>Each acquire returns its own handle; re-entrant handles share one grant and the queue
 * node goes when the last of them is released. A handle may be released from any thread, and
 * releasing it twice is harmless. Releasing a handle whose lease is already lost deletes
 * nothing but its own queue node, if that still exists.
 */
public final class Lease implements AutoCloseable {

    private final Hold grant;
    private final AtomicBoolean released = new AtomicBoolean();

    Lease(Hold grant) {
        this.grant = grant;
    }

    /** The application lock name. */
    public String lockName() {
        return grant.lockName();
    }

    /** The fencing token of this grant: see <a href="#token-contract">the contract</a>. */
    public long token() {
        return grant.token();
    }

    /** ZooKeeper's sequence suffix of the queue node. For diagnostics; not a fencing token. */
    public int sequence() {
        return grant.sequence();
    }

    /** The queue node's path (client path, without any Curator namespace). */
    public String nodePath() {
        return grant.nodePath();
    }

    /** The lease TTL: the session timeout negotiated with the servers when the lock was granted. */
    public Duration ttl() {
        return grant.ttl();
    }

    /** This handle's state: {@link LeaseState#RELEASED} once this handle was released, else the grant's. */
    public LeaseState state() {
        return released.get() ? LeaseState.RELEASED : grant.state();
    }

    /** True while {@link #state()} is {@link LeaseState#HELD}. */
    public boolean isValid() {
        return state() == LeaseState.HELD;
    }

    /**
     * Throws unless the lease is {@link LeaseState#HELD}. Call it right before a critical write;
     * it reads local state only (no round trip).
     *
     * @throws LeaseSuspendedException while the connection is suspended
     * @throws LeaseLostException      when the lease is lost or released
     */
    public void checkValid() {
        if (released.get()) {
            throw new LeaseLostException(
                    grant.lockName(), grant.token(), LeaseState.RELEASED, "this handle was released");
        }
        grant.checkNotFinal();
        if (grant.state() == LeaseState.SUSPECT) {
            throw new LeaseSuspendedException(grant.lockName(), grant.token());
        }
    }

    /** Why the lease ended, once it is {@link LeaseState#LOST} or {@link LeaseState#RELEASED}. */
    public Optional<String> endReason() {
        return Optional.ofNullable(grant.endReason());
    }

    /**
     * Completes with the final state (LOST or RELEASED) when the grant ends, however it ends;
     * already complete if it has. A value to compose, like etcd's {@code Session.Done()}.
     * Continuations attached before the end run on the client's event thread, after the
     * listeners have heard the change, never on ZooKeeper's event thread (where blocking would
     * stall every lease and waiter of the client); attached after it, they run on the attaching
     * thread.
     */
    public CompletionStage<LeaseState> ended() {
        return grant.ended();
    }

    /**
     * Registers a listener for the grant's state changes from now on (see {@link LeaseListener}).
     * A listener added after the lease ended is never called; use {@link #ended()} for that.
     */
    public void addListener(LeaseListener listener) {
        grant.addListener(this, Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(LeaseListener listener) {
        grant.removeListener(listener);
    }

    /** The max-hold deadline, if the lock was acquired with one. */
    public Optional<Instant> deadline() {
        return grant.maxHold() == null ? Optional.empty() : Optional.ofNullable(grant.deadline());
    }

    /**
     * Pushes the max-hold deadline to now + max-hold. A holder that neither renews nor releases
     * before the deadline loses the lease: the library marks it LOST and releases the lock.
     *
     * @throws IllegalStateException if the lock was acquired without a max-hold
     * @throws LeaseLostException    if the lease has already ended
     */
    public void renew() {
        if (released.get()) {
            throw new LeaseLostException(
                    grant.lockName(), grant.token(), LeaseState.RELEASED, "this handle was released");
        }
        grant.renew();
    }

    /**
     * Releases this handle; the last handle of a grant releases the lock and deletes its node,
     * waiting for ZooKeeper to confirm. If the connection fails meanwhile (ZooKeeper's client
     * gives a request up within two thirds of the session timeout) the delete goes on in the
     * background, and the node goes with the session at the latest; release never throws for
     * that. Idempotent.
     */
    public void release() {
        if (released.compareAndSet(false, true)) {
            grant.releaseOne();
        }
    }

    /** Same as {@link #release()}. */
    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "Lease{lock=" + grant.lockName() + ", token=" + grant.token() + ", state=" + state() + "}";
    }
}

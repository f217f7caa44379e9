package io.zkfence.lock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A named, herd-free, FIFO lock whose every grant carries a fencing token. Obtained from
 * {@link LockClient#lock(String)}; cheap, immutable and thread-safe, so keep one or make one per
 * use as you like.
 *
 * <pre>{@code
 * FencedLock lock = client.lock("inventory:sku:123");
 * try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
 *     lease.checkValid();
 *     inventoryDao.reserve(sku, qty, lease.token());   // the resource rejects stale tokens
 * }
 * }</pre>
 *
 * <p>Acquirers are granted in arrival order. A thread that already holds this lock (through
 * the same {@link LockClient}) gets the same grant and token again, unless the handle is
 * {@link #nonReentrant()}. See {@link Lease} for the
 * token and lease contract.
 */
public final class FencedLock {

    private final LockClient client;
    private final String name;
    private final String path;
    private final Duration maxHold;
    private final CohortPolicy cohort;
    private final boolean reentrant;

    FencedLock(LockClient client, String name, String path, Duration maxHold) {
        this(client, name, path, maxHold, null, true);
    }

    private FencedLock(
            LockClient client, String name, String path, Duration maxHold, CohortPolicy cohort, boolean reentrant) {
        this.client = client;
        this.name = name;
        this.path = path;
        this.maxHold = maxHold;
        this.cohort = cohort;
        this.reentrant = reentrant;
    }

    /** The application lock name. */
    public String name() {
        return name;
    }

    /** The lock's znode (the name, percent-encoded, under the client's root path). */
    public String path() {
        return path;
    }

    /** The max-hold applied to each grant of this handle, if any. */
    public Optional<Duration> maxHold() {
        return Optional.ofNullable(maxHold);
    }

    /**
     * The same lock, with a max-hold on every grant: a holder that neither {@link Lease#renew()
     * renews} nor releases within {@code maxHold} loses the lease, and the library releases the
     * lock for the next waiter. Bounds the damage of a holder that hangs while its process keeps
     * the session alive. A re-entrant acquire keeps the first grant's max-hold.
     *
     * @throws IllegalArgumentException if {@code maxHold} is not positive
     */
    public FencedLock withMaxHold(Duration maxHold) {
        Objects.requireNonNull(maxHold, "maxHold");
        if (maxHold.isNegative() || maxHold.isZero()) {
            throw new IllegalArgumentException("maxHold must be positive, was " + maxHold + " (lock '" + name + "')");
        }
        return new FencedLock(client, name, path, maxHold, cohort, reentrant);
    }

    /**
     * The same lock in cohort mode, with the default batch (32 turns, 20 ms): see
     * {@link #withCohort(int, Duration)}.
     */
    public FencedLock withCohort() {
        return withCohort(CohortPolicy.DEFAULT.maxBatch(), CohortPolicy.DEFAULT.maxBatchTime());
    }

    /**
     * The same lock in cohort mode, for hot locks that many threads of this client want at once.
     * The client's threads queue locally behind one ZooKeeper queue node; once it is granted the
     * lock passes from thread to thread in arrival order without a ZooKeeper round trip, for at
     * most {@code maxBatch} turns and {@code maxBatchTime} since the node was granted, then the
     * node is released so other processes get their turn, and the remaining threads queue again.
     *
     * <p><b>Tokens are equal within a cohort:</b> every turn under one node carries that node's
     * token, so successive grants to different threads of this client may share a token; across
     * cohorts tokens still strictly increase. Resources that accept a token {@code >=} the highest
     * they have seen stay safe (see docs/token-contract.md), but code that uses the token as a
     * per-grant identifier must not use this mode. Off unless asked for.
     *
     * <p>Everything else behaves as without it: timeouts, interrupts, re-entrancy (per thread),
     * lease states (a lost session makes every turn on the node LOST), max-hold (per turn; a turn
     * that passes it also ends the node, so its token is never handed on), release from another
     * thread, {@code close()}. One client should use one mode per lock name: a cohort and plain
     * acquires of the same name queue separately, like two processes.
     *
     * @throws IllegalArgumentException if {@code maxBatch} is below 1 or {@code maxBatchTime} is
     *                                  not in (0, 1 min]
     */
    public FencedLock withCohort(int maxBatch, Duration maxBatchTime) {
        CohortPolicy policy = new CohortPolicy(maxBatch, maxBatchTime);
        if (!reentrant) {
            throw new IllegalArgumentException("cohort mode takes turns per thread and is re-entrant per thread; it"
                    + " cannot be combined with nonReentrant() (lock '" + name + "')");
        }
        return new FencedLock(client, name, path, maxHold, policy, true);
    }

    /**
     * The same lock without re-entrancy: every acquire through the returned handle queues its own
     * node and waits for it, even in a thread that already holds the lock (through any handle), as
     * Curator's {@code InterProcessSemaphoreMutex} does and as Hazelcast lets you choose. A thread
     * that acquires it twice without releasing waits for itself: an untimed acquire then never
     * returns, a timed one times out. Use it when the lock is a permit handed between threads, or
     * when you build your own re-entrancy per object (the Curator door does). Plain acquires do
     * not re-enter a grant made through this handle either.
     *
     * @throws IllegalArgumentException on a cohort-mode lock
     */
    public FencedLock nonReentrant() {
        if (cohort != null) {
            throw new IllegalArgumentException("cohort mode takes turns per thread and is re-entrant per thread; it"
                    + " cannot be combined with nonReentrant() (lock '" + name + "')");
        }
        return new FencedLock(client, name, path, maxHold, null, false);
    }

    /** Whether a thread that holds this lock gets the same grant again (the default), see {@link #nonReentrant()}. */
    public boolean isReentrant() {
        return reentrant;
    }

    /** Whether this handle acquires in cohort mode ({@link #withCohort(int, Duration)}). */
    public boolean isCohort() {
        return cohort != null;
    }

    CohortPolicy cohort() {
        return cohort;
    }

    /**
     * Waits as long as it takes for the lock, through connection blips; if the session expires
     * while waiting, queues again.
     *
     * @throws AcquireInterruptedException if the thread is interrupted (its flag is set again)
     * @throws CoordinationException       if ZooKeeper refuses the operation (e.g. no permission)
     * @throws LockClientClosedException   if the client is closed, before or while waiting
     */
    public Lease acquire() {
        return client.acquire(this, null);
    }

    /**
     * Waits up to {@code timeout} for the lock. On timeout the waiter leaves the queue.
     *
     * <p>The first attempt (queueing and reading the queue) always completes before the timeout
     * counts, as with Curator's mutex and {@code Lock.tryLock(0, unit)}: a lock that nobody holds
     * or waits for is granted at any timeout, {@link Duration#ZERO} included, however far the
     * servers are; a held lock at {@code ZERO} times out once that attempt has shown the holder,
     * so the error comes after about one round trip. The first attempt is bounded by the larger
     * of {@code timeout} and the client's {@code operationTimeout}.
     *
     * @throws AcquireTimeoutException     if the lock was not granted in time
     * @throws AcquireInterruptedException if the thread is interrupted (its flag is set again)
     * @throws CoordinationException       if ZooKeeper refuses the operation
     * @throws LockClientClosedException   if the client is closed, before or while waiting
     * @throws IllegalArgumentException    if {@code timeout} is negative
     */
    public Lease acquire(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException(
                    "timeout must not be negative, was " + timeout + " (lock '" + name + "')");
        }
        return client.acquire(this, timeout);
    }

    /**
     * Takes the lock only if nobody holds it or waits for it, without waiting for anyone; when it
     * is taken, returns empty and leaves no queue node behind. Costs one read when the lock is
     * taken; when it is free, that read, then the create with a read pipelined behind it (two
     * round trips, one write). (If the client's server has not yet applied the holder's create,
     * the read sees a free lock: the try then queues, finds the holder and withdraws, still
     * returning empty and leaving no node.)
     *
     * @throws CoordinationException if ZooKeeper cannot be reached within the client's
     *                               {@code operationTimeout}, or refuses the operation
     * @throws AcquireInterruptedException if the thread is interrupted (its flag is set again)
     * @throws LockClientClosedException   if the client is closed
     */
    public Optional<Lease> tryAcquire() {
        return client.tryAcquire(this);
    }

    /** A snapshot of this lock's queue; see {@link LockClient#inspect(String)}. */
    public LockInfo inspect() {
        return client.inspect(name);
    }

    @Override
    public String toString() {
        return "FencedLock{" + name + " at " + path + (maxHold == null ? "" : ", maxHold=" + maxHold)
                + (cohort == null ? "" : ", cohort=" + cohort.maxBatch() + "/" + cohort.maxBatchTime())
                + (reentrant ? "" : ", nonReentrant") + "}";
    }
}

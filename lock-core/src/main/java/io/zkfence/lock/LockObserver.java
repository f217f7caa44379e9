package io.zkfence.lock;

import io.zkfence.fencing.internal.ObserverList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link LockClient} tells its observers (today: {@link LockClientMetrics}): grants,
 * timeouts, ends of leases, SUSPECT moves, wake-ups, forced releases. Package-private on purpose,
 * so lock-core's core classes depend on no metrics library: only the binder, which nothing else
 * loads, touches Micrometer.
 *
 * <p>Calls come from ZooKeeper's event thread, the client's timer and callers' threads, some under
 * a grant's or an acquisition's monitor: an observer must be quick, must not block and must not
 * call back into the client. A throw is logged and dropped.
 */
interface LockObserver {

    /** Why a grant ended LOST; the tag value is what metrics carry. */
    enum LossCause {
        /** The ZooKeeper session expired, or Curator gave it up (LOST). */
        SESSION_EXPIRED("session_expired"),
        /** The queue node was deleted by someone else: an operator, {@link LockAdmin#forceRelease}, a script. */
        NODE_DELETED("node_deleted"),
        /** The max-hold passed without renew or release. */
        MAX_HOLD("max_hold"),
        /** The grant could not be completed (client closing part-way). */
        OTHER("other");

        final String tag;

        LossCause(String tag) {
            this.tag = tag;
        }
    }

    /**
     * A queue node reached the head and was granted.
     *
     * @param acquireNanos from the acquire call's first request to the grant
     * @param waitNanos    from the queue read that found someone ahead to the grant; negative if
     *                     the node never waited behind another
     */
    default void granted(String lockName, long acquireNanos, long waitNanos) {}

    /** An acquire with a timeout gave up; {@code waitedNanos} is how long the call waited. */
    default void timedOut(String lockName, long waitedNanos) {}

    /** A grant moved HELD → SUSPECT (connection suspended). */
    default void suspected(String lockName) {}

    /**
     * A grant ended after {@code heldNanos}: {@code end} is RELEASED or LOST; {@code cause} is
     * null for RELEASED.
     */
    default void ended(String lockName, long heldNanos, LeaseState end, LossCause cause) {}

    /** A watch on a waiter's predecessor fired (one per contended hand-off, herd-free). */
    default void wokeUp(String lockName) {}

    /** This client's {@link LockAdmin} force-released (or tried to) the holder of {@code lockName}. */
    default void forceReleased(String lockName, ForcedRelease.Outcome outcome) {}

    /** The observers of one client: a copy-on-write list, empty (and near free) without metrics. */
    final class All implements LockObserver {

        private static final Logger log = LoggerFactory.getLogger(LockObserver.class);

        private final ObserverList<LockObserver> observers =
                new ObserverList<>((o, e) -> log.warn("lock observer {} failed", o, e));

        /** Reserves {@code binding} (a meter registry); false if it was bound already. */
        boolean bind(Object binding) {
            return observers.bind(binding);
        }

        void add(LockObserver observer) {
            observers.add(observer);
        }

        @Override
        public void granted(String lockName, long acquireNanos, long waitNanos) {
            if (!observers.isEmpty()) { // no lambda, no allocation, without observers
                observers.each(o -> o.granted(lockName, acquireNanos, waitNanos));
            }
        }

        @Override
        public void timedOut(String lockName, long waitedNanos) {
            if (!observers.isEmpty()) { // no lambda, no allocation, without observers
                observers.each(o -> o.timedOut(lockName, waitedNanos));
            }
        }

        @Override
        public void suspected(String lockName) {
            if (!observers.isEmpty()) { // no lambda, no allocation, without observers
                observers.each(o -> o.suspected(lockName));
            }
        }

        @Override
        public void ended(String lockName, long heldNanos, LeaseState end, LossCause cause) {
            if (!observers.isEmpty()) { // no lambda, no allocation, without observers
                observers.each(o -> o.ended(lockName, heldNanos, end, cause));
            }
        }

        @Override
        public void wokeUp(String lockName) {
            if (!observers.isEmpty()) { // no lambda, no allocation, without observers
                observers.each(o -> o.wokeUp(lockName));
            }
        }

        @Override
        public void forceReleased(String lockName, ForcedRelease.Outcome outcome) {
            if (!observers.isEmpty()) { // no lambda, no allocation, without observers
                observers.each(o -> o.forceReleased(lockName, outcome));
            }
        }
    }
}

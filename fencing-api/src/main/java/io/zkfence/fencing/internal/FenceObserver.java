package io.zkfence.fencing.internal;

import java.util.function.BiConsumer;

/**
 * What a fence (fencing-jdbc's {@code JdbcFence}, fencing-s3's {@code FencedBucket}) tells its
 * observers about its fenced calls: today the adapters' meter binders, so that an adapter's core
 * classes depend on no metrics library. Not API.
 *
 * <p>Observers are called on the caller's thread and must be quick; a throw is logged and
 * dropped. {@code operation} is the adapter's name for the call ("transaction", "advance";
 * "PutObject", "DeleteObject", ...).
 */
public interface FenceObserver {

    /** Observers that do nothing. */
    FenceObserver NONE = new FenceObserver() {};

    /**
     * The fence accepted the token.
     *
     * @param operation the fenced call
     */
    default void accepted(String operation) {}

    /**
     * The fence rejected a stale token.
     *
     * @param operation the fenced call
     */
    default void rejectedStale(String operation) {}

    /**
     * The call failed with a conflict its caller may retry with the same token: the database
     * aborted the transaction for a concurrent one (fencing-jdbc), or every conditional request
     * lost its race (fencing-s3).
     *
     * @param operation the fenced call
     */
    default void conflict(String operation) {}

    /**
     * A conditional request lost a race against an equal or lower token and is retried within
     * the call (fencing-s3).
     *
     * @param operation the fenced call
     */
    default void lostRace(String operation) {}

    /**
     * The store's self-check found it ignores a precondition (fencing-s3).
     *
     * @param check which precondition: put, multipart, delete
     */
    default void selfCheckFailed(String check) {}

    /** The observers of one fence; empty (one check per call) without metrics. */
    final class All implements FenceObserver {

        private static final System.Logger log = System.getLogger(FenceObserver.class.getName());

        private final ObserverList<FenceObserver> observers;

        /** No observers yet; one that throws is logged through {@link System.Logger}. */
        public All() {
            this((o, e) -> log.log(System.Logger.Level.WARNING, "fence observer " + o + " failed", e));
        }

        /**
         * No observers yet.
         *
         * @param failed told of an observer that threw, and what: the adapter logs it
         */
        public All(BiConsumer<FenceObserver, RuntimeException> failed) {
            this.observers = new ObserverList<>(failed);
        }

        /**
         * Reserves {@code binding} (a meter registry).
         *
         * @param binding what binds observers here
         * @return false if it was bound already
         */
        public boolean bind(Object binding) {
            return observers.bind(binding);
        }

        /**
         * Adds an observer.
         *
         * @param observer told of every call from now on
         */
        public void add(FenceObserver observer) {
            observers.add(observer);
        }

        @Override
        public void accepted(String operation) {
            if (!observers.isEmpty()) {
                observers.each(o -> o.accepted(operation));
            }
        }

        @Override
        public void rejectedStale(String operation) {
            if (!observers.isEmpty()) {
                observers.each(o -> o.rejectedStale(operation));
            }
        }

        @Override
        public void conflict(String operation) {
            if (!observers.isEmpty()) {
                observers.each(o -> o.conflict(operation));
            }
        }

        @Override
        public void lostRace(String operation) {
            if (!observers.isEmpty()) {
                observers.each(o -> o.lostRace(operation));
            }
        }

        @Override
        public void selfCheckFailed(String check) {
            if (!observers.isEmpty()) {
                observers.each(o -> o.selfCheckFailed(check));
            }
        }
    }
}

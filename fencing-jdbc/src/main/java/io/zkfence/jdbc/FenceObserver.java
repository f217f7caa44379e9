package io.zkfence.jdbc;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What a {@link JdbcFence} tells its observers (today: {@link JdbcFenceMetrics}) about each fenced
 * call. Package-private, so the adapter's core classes depend on no metrics library. Observers are
 * called on the caller's thread and must be quick; a throw is logged and dropped.
 */
interface FenceObserver {

    /** The fence accepted the token ({@code operation}: "transaction" or "advance"). */
    default void accepted(String operation) {}

    /** The fence rejected a stale token. */
    default void rejectedStale(String operation) {}

    /** The call failed with a retryable {@link SerializationConflictException}. */
    default void conflict(String operation) {}

    /** The observers of one fence; empty (one check per call) without metrics. */
    final class All implements FenceObserver {

        private static final System.Logger log = System.getLogger(FenceObserver.class.getName());

        private final List<FenceObserver> observers = new CopyOnWriteArrayList<>();

        /** Who has bound meters here (registries, by identity): one binding per registry. */
        private final java.util.Set<Object> bindings =
                java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

        /** Reserves {@code binding} (a meter registry); false if it was bound already. */
        boolean bind(Object binding) {
            synchronized (bindings) {
                return bindings.add(binding);
            }
        }

        void add(FenceObserver observer) {
            observers.add(observer);
        }

        private void each(java.util.function.Consumer<FenceObserver> call) {
            for (FenceObserver o : observers) {
                try {
                    call.accept(o);
                } catch (RuntimeException e) {
                    log.log(System.Logger.Level.WARNING, "fence observer " + o + " failed", e);
                }
            }
        }

        @Override
        public void accepted(String operation) {
            if (!observers.isEmpty()) {
                each(o -> o.accepted(operation));
            }
        }

        @Override
        public void rejectedStale(String operation) {
            if (!observers.isEmpty()) {
                each(o -> o.rejectedStale(operation));
            }
        }

        @Override
        public void conflict(String operation) {
            if (!observers.isEmpty()) {
                each(o -> o.conflict(operation));
            }
        }
    }
}

package io.zkfence.s3;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a {@link FencedBucket} tells its observers (today: {@link FencedBucketMetrics}) about its
 * fenced requests. Package-private, so the adapter's core classes depend on no metrics library.
 * Observers are called on the caller's thread and must be quick; a throw is logged and dropped.
 * {@code operation} is the S3 operation's name ("PutObject", "DeleteObject", ...).
 */
interface FenceObserver {

    /** The conditional request was accepted with the caller's token. */
    default void accepted(String operation) {}

    /** The stored (or remembered) token was higher: a stale rejection. */
    default void rejectedStale(String operation) {}

    /** A conditional request lost a race (412/409/404) against an equal or lower token; it is retried. */
    default void lostRace(String operation) {}

    /** Every attempt lost its race: {@link FenceContentionException}, retryable by the caller. */
    default void contended(String operation) {}

    /** The self-check found the store ignores a precondition ({@code check}: put, multipart, delete). */
    default void selfCheckFailed(String check) {}

    /** Observers that do nothing: for the package's own tests that build the parts by hand. */
    FenceObserver NONE = new FenceObserver() {};

    /** The observers of one bucket; empty (one check per call) without metrics. */
    final class All implements FenceObserver {

        private static final Logger log = LoggerFactory.getLogger(FenceObserver.class);

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
                    log.warn("fence observer {} failed", o, e);
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
        public void lostRace(String operation) {
            if (!observers.isEmpty()) {
                each(o -> o.lostRace(operation));
            }
        }

        @Override
        public void contended(String operation) {
            if (!observers.isEmpty()) {
                each(o -> o.contended(operation));
            }
        }

        @Override
        public void selfCheckFailed(String check) {
            if (!observers.isEmpty()) {
                each(o -> o.selfCheckFailed(check));
            }
        }
    }
}

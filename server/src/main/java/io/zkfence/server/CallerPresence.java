package io.zkfence.server;

/**
 * Whether the caller of a waiting acquire is still there to take the answer. A wait whose caller
 * has left gives up its queue entry at once, so the waiters behind it are not held up until its
 * {@code waitMillis} run out. The store only asks; the HTTP layer knows ({@link ConnectionWatch}).
 */
interface CallerPresence {

    /** A caller nobody watches: its wait lasts until it is granted or its bound runs out. */
    CallerPresence UNWATCHED = new CallerPresence() {
        @Override
        public boolean gone() {
            return false;
        }

        @Override
        public Runnable onGone(Runnable wake) {
            return () -> {};
        }
    };

    /** True once the caller has left; it never turns false again. */
    boolean gone();

    /**
     * Runs {@code wake} once when the caller leaves, at once if it has left already.
     *
     * @return stops that; a {@code wake} already under way may still finish, so it must be
     *         harmless late (counting down a latch is)
     */
    Runnable onGone(Runnable wake);
}

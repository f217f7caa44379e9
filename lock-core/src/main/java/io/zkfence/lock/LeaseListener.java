package io.zkfence.lock;

/**
 * Told about each state change of a lease after it was registered.
 *
 * <p>Called on the lock client's event thread, one change at a time in order. The lease's
 * {@link Lease#state()} is already updated when the listener runs. Do not block in it: a slow
 * listener delays the others. A listener that throws is logged and does not stop the others.
 */
@FunctionalInterface
public interface LeaseListener {

    /** The lease moved from {@code from} to {@code to}. */
    void stateChanged(Lease lease, LeaseState from, LeaseState to);
}

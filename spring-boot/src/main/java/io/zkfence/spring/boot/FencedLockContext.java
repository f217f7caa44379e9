package io.zkfence.spring.boot;

import io.zkfence.lock.Lease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The lease of the {@link FencedLocked @FencedLocked} call running on the calling thread, so the
 * method can fence its writes with the grant's token:
 *
 * <pre>{@code
 * long token = FencedLockContext.currentToken();
 * FencedLockContext.currentLease().orElseThrow().checkValid(); // right before a critical write
 * }</pre>
 *
 * <p>The lease is bound to the thread that called the method, from the acquire to the release
 * in the call's {@code finally}; it is never visible after the call or on another thread (work
 * handed to other threads takes the token along as a value). When {@code @FencedLocked} calls
 * nest, the innermost call's lease is current, and the outer one is again once the inner returns.
 * The token follows lock-core's contract ({@link Lease#token()}): every later grant of the same
 * lock, in any process, has a higher one.
 */
public final class FencedLockContext {

    private static final ThreadLocal<Deque<Lease>> CALLS = new ThreadLocal<>();

    private FencedLockContext() {}

    /**
     * The fencing token of the {@code @FencedLocked} call on this thread.
     *
     * @return the token
     * @throws IllegalStateException outside a {@code @FencedLocked} call
     */
    public static long currentToken() {
        return currentLease()
                .orElseThrow(() -> new IllegalStateException(
                        "no @FencedLocked call on this thread: call it from a @FencedLocked method, through its bean"))
                .token();
    }

    /**
     * The lease of the {@code @FencedLocked} call on this thread.
     *
     * @return the lease, or empty outside a {@code @FencedLocked} call
     */
    public static Optional<Lease> currentLease() {
        Deque<Lease> calls = CALLS.get();
        return calls == null ? Optional.empty() : Optional.ofNullable(calls.peek());
    }

    static void enter(Lease lease) {
        Deque<Lease> calls = CALLS.get();
        if (calls == null) {
            calls = new ArrayDeque<>();
            CALLS.set(calls);
        }
        calls.push(lease);
    }

    /** Ends the innermost call; the thread keeps no state once the outermost call has ended. */
    static void exit() {
        Deque<Lease> calls = CALLS.get();
        if (calls != null) {
            calls.poll();
            if (calls.isEmpty()) {
                CALLS.remove();
            }
        }
    }
}

package io.zkfence.lock;

/**
 * The acquiring thread was interrupted. The thread's interrupt flag is set again when this is
 * thrown, and the waiter's queue node has been removed (or is being removed in the background).
 */
public final class AcquireInterruptedException extends LockException {

    private static final long serialVersionUID = 1L;

    AcquireInterruptedException(String lockName, InterruptedException cause) {
        super(lockName, "interrupted while acquiring lock '" + lockName + "'", cause);
    }

    /**
     * This interrupt as an {@link InterruptedException}, for an API that reports interrupts by
     * throwing one ({@code Lock.lockInterruptibly}, Curator's {@code InterProcessLock}). Clears the
     * calling thread's interrupt flag, which lock-core set again when it threw this: the thrown
     * {@code InterruptedException} carries the interrupt instead, as the JDK's blocking methods
     * do. Call it on the interrupted thread:
     *
     * <pre>{@code
     * try {
     *     lease = lock.acquire();
     * } catch (AcquireInterruptedException e) {
     *     throw e.toInterruptedException();
     * }
     * }</pre>
     *
     * @return an {@code InterruptedException} with this message and this exception as its cause
     */
    public InterruptedException toInterruptedException() {
        Thread.interrupted();
        InterruptedException interrupted = new InterruptedException(getMessage());
        interrupted.initCause(this);
        return interrupted;
    }
}

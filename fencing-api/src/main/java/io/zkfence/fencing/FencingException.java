package io.zkfence.fencing;

/**
 * Base of every exception a fencing adapter throws when it could not apply a fenced operation.
 *
 * <p>Unchecked. Catch it to handle every fencing failure of every adapter in one place. Each
 * adapter throws its own subclasses, which carry the details of its resource (a table and key, a
 * bucket and object key); the one outcome every adapter shares has its own type here,
 * {@link StaleTokenException}.
 *
 * <p>In each adapter, the adapter's base exception ({@code io.zkfence.jdbc.FenceException},
 * {@code io.zkfence.s3.FenceException}) and its {@code StaleTokenException} are siblings under
 * this class: a stale token is not a kind of adapter failure to retry or inspect, it means the lock
 * is lost. To catch every failure of one adapter including a stale token, catch this type (or
 * both adapter types).
 */
public abstract class FencingException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates an exception. Only adapters create them.
     *
     * @param message what failed, naming the resource and the token where known
     * @param cause   the underlying failure, or {@code null}
     */
    protected FencingException(String message, Throwable cause) {
        super(message, cause);
    }
}

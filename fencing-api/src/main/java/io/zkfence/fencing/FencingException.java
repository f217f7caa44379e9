package io.zkfence.fencing;

/**
 * Base of every exception a fencing adapter throws when it could not apply a fenced operation:
 * {@code catch (FencingException e)} handles every failure of every adapter, a stale token
 * included.
 *
 * <p>Unchecked. Each adapter throws its own subclasses, named after it, which carry the details
 * of its resource (a table and key, a bucket and object key); the one outcome every adapter shares
 * has its own type here, {@link StaleTokenException}.
 *
 * <p>In each adapter, the adapter's base exception ({@code io.zkfence.jdbc.JdbcFenceException},
 * {@code io.zkfence.s3.S3FenceException}) and its stale-token exception
 * ({@code JdbcStaleTokenException}, {@code S3StaleTokenException}) are siblings under this class:
 * a stale token is not a kind of adapter failure to retry or inspect, it means the lock is lost.
 * So an adapter's base exception does not catch a stale token; this type does. Invalid arguments
 * (a blank key, a token below 1) are programming errors, reported with the JDK's
 * {@code IllegalArgumentException} before anything is sent.
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

package io.zkfence.fencing;

import java.util.Objects;

/**
 * The resource has already accepted a higher fencing token than the one presented: the lock was
 * granted to a newer holder since this token was issued, and the operation was refused.
 *
 * <p>This is the outcome fencing exists for. Every adapter's stale-token exception
 * ({@code io.zkfence.jdbc.JdbcStaleTokenException}, {@code io.zkfence.s3.S3StaleTokenException})
 * extends this class, so one {@code catch (io.zkfence.fencing.StaleTokenException e)} handles a
 * stale token from any resource. When it is thrown the adapter has written nothing.
 *
 * <p>Never retry with the same token: it is rejected forever. The holder has lost the lock; acquire
 * it again to obtain a new token.
 */
public abstract class StaleTokenException extends FencingException {

    private static final long serialVersionUID = 1L;

    /** The resource, in the adapter's words. */
    private final String resource;
    /** The token the caller presented. */
    private final long presentedToken;
    /** The higher token the resource had accepted. */
    private final long storedToken;

    /**
     * Creates the exception. Only adapters create them.
     *
     * @param message        what was refused, naming the resource and both tokens
     * @param resource       the fenced resource as the adapter names it (a fence key, an
     *                       {@code s3://bucket/key} location); not {@code null}
     * @param presentedToken the token the caller presented
     * @param storedToken    the higher token the resource had already accepted
     */
    protected StaleTokenException(String message, String resource, long presentedToken, long storedToken) {
        super(message, null);
        this.resource = Objects.requireNonNull(resource, "resource");
        this.presentedToken = presentedToken;
        this.storedToken = storedToken;
    }

    /**
     * Returns the fenced resource that refused the operation, as the adapter names it: the fence
     * key for {@code fencing-jdbc}, the {@code s3://bucket/key} location for {@code fencing-s3}.
     *
     * @return the resource, never {@code null}
     */
    public String resource() {
        return resource;
    }

    /**
     * Returns the token the caller presented.
     *
     * @return the presented (rejected) token
     */
    public long presentedToken() {
        return presentedToken;
    }

    /**
     * Returns the highest token the resource had accepted when the presented one was refused.
     *
     * @return the stored token, greater than {@link #presentedToken()}
     */
    public long storedToken() {
        return storedToken;
    }
}

package io.zkfence.jdbc;

/**
 * The presented fencing token is lower than the highest token the resource has already accepted:
 * another holder has been granted the lock since this token was issued.
 *
 * <p>When this is thrown nothing of the fenced unit of work has been written: the fence check is
 * the first statement of the transaction and, where this module manages the transaction, it has
 * been rolled back. Where the caller manages the transaction, the caller must roll it back (an
 * unchecked exception does that in Spring's {@code @Transactional} and in jOOQ's
 * {@code transaction(...)}).
 *
 * <p>Do not retry with the same token: it will be rejected forever. The holder has lost the lock;
 * acquire it again to obtain a new token.
 */
public final class StaleTokenException extends FenceException {

    /** The higher token already accepted. */
    private final long storedToken;

    /**
     * Creates the exception.
     *
     * @param resourceKey   the protected resource's key (for a {@link TokenColumn} update, the
     *                      table and row condition)
     * @param presentedToken the token the caller presented
     * @param storedToken    the higher token the resource has already accepted
     * @param table          the table holding the token, for the message
     */
    StaleTokenException(String resourceKey, long presentedToken, long storedToken, String table) {
        super("stale fencing token for resource '" + resourceKey + "': presented " + presentedToken
                        + " but " + table + " has already accepted " + storedToken
                        + "; the lock was granted to a newer holder, nothing was written",
                resourceKey, presentedToken, null);
        this.storedToken = storedToken;
    }

    /**
     * Returns the token the caller presented.
     *
     * @return the presented (rejected) token
     */
    public long presentedToken() {
        return token().orElseThrow();
    }

    /**
     * Returns the highest token the resource had accepted when this token was rejected.
     *
     * @return the stored token, always greater than {@link #presentedToken()}
     */
    public long storedToken() {
        return storedToken;
    }
}

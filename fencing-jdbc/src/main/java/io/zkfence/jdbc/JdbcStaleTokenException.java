package io.zkfence.jdbc;

import io.zkfence.fencing.FencingException;
import io.zkfence.fencing.StaleTokenException;
import java.util.Optional;
import java.util.OptionalLong;

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
 *
 * <p>It extends the shared {@link StaleTokenException} (whose {@link #resource()} is the fence
 * key), so one {@code catch (StaleTokenException e)} handles a stale token from any adapter, and
 * {@code catch (FencingException e)} handles every failure of every adapter, this one included.
 * It does not extend this module's {@link JdbcFenceException} (Java has one superclass): a
 * {@code catch (JdbcFenceException e)} does not catch it.
 *
 * <p>Called {@code io.zkfence.jdbc.StaleTokenException} before 0.2.0.
 *
 * @see FencingException
 */
public final class JdbcStaleTokenException extends StaleTokenException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param resourceKey   the protected resource's key (for a {@link TokenColumn} update, the
     *                      table and row condition)
     * @param presentedToken the token the caller presented
     * @param storedToken    the higher token the resource has already accepted
     * @param table          the table holding the token, for the message
     */
    JdbcStaleTokenException(String resourceKey, long presentedToken, long storedToken, String table) {
        super(
                "stale fencing token for resource '" + resourceKey + "': presented " + presentedToken
                        + " but " + table + " has already accepted " + storedToken
                        + "; the lock was granted to a newer holder, nothing was written",
                resourceKey,
                presentedToken,
                storedToken);
    }

    /**
     * Returns the key of the protected resource, as {@link JdbcFenceException#resourceKey()} does.
     *
     * @return the key (the same as {@link #resource()}), never empty
     */
    public Optional<String> resourceKey() {
        return Optional.of(resource());
    }

    /**
     * Returns the token the caller presented, as {@link JdbcFenceException#token()} does.
     *
     * @return the presented token (the same as {@link #presentedToken()}), never empty
     */
    public OptionalLong token() {
        return OptionalLong.of(presentedToken());
    }
}

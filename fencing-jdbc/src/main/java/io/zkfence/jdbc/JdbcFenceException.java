package io.zkfence.jdbc;

import io.zkfence.fencing.FencingException;
import io.zkfence.fencing.StaleTokenException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Base of the exceptions this module throws when fencing fails at the database, a stale token
 * excepted ({@link JdbcStaleTokenException}, below). Catch {@link FencingException} to handle
 * every failure of this module and of every other adapter, stale tokens included.
 *
 * <p>It is unchecked, carries the protected resource's key and the presented token where they
 * are known, and keeps the underlying {@link java.sql.SQLException} (or jOOQ exception) as its
 * cause whenever one caused it (a fence that gave up because rows kept changing between its
 * statements has none). Subclasses say what went wrong:
 * <ul>
 *   <li>{@link SerializationConflictException}: the database aborted the transaction because of
 *       a concurrent one (a serialization failure, a deadlock, or a lock wait that timed out);
 *       retrying the whole unit of work with the same token is safe.</li>
 *   <li>{@link FenceTableMissingException}: the fence table does not exist.</li>
 *   <li>{@link RowNotFoundException}: a {@link TokenColumn} update matched no row at all.</li>
 * </ul>
 * A plain {@code JdbcFenceException} covers everything else (a broken connection, a fence table
 * with unexpected columns, a failed commit whose outcome is unknown); its message says which.
 *
 * <p>A stale token is not one of them: {@link JdbcStaleTokenException} extends the shared
 * {@link StaleTokenException}, so that one catch handles a stale token from any adapter. Both this
 * class and it extend {@link FencingException}: catch that to handle every failure of this module,
 * stale tokens included.
 *
 * <p>Called {@code io.zkfence.jdbc.FenceException} before 0.2.0.
 *
 * <p>Invalid arguments (a blank key, a token below 1, an auto-commit connection where a
 * transaction is required) are programming errors and are reported with the JDK's
 * {@link IllegalArgumentException} and {@link IllegalStateException} before anything is sent to
 * the database.
 */
public class JdbcFenceException extends FencingException {

    /** The protected resource's key, or {@code null}. */
    private final String resourceKey;
    /** The presented token, or {@code 0}. */
    private final long token;

    /**
     * Creates an exception. Only this module throws them.
     *
     * @param message     what failed, naming the key, token and table
     * @param resourceKey the protected resource's key, or {@code null} when not known
     * @param token       the token presented by the caller, or {@code 0} when not known
     * @param cause       the underlying failure, or {@code null}
     */
    JdbcFenceException(String message, String resourceKey, long token, Throwable cause) {
        super(message, cause);
        this.resourceKey = resourceKey;
        this.token = token;
    }

    /**
     * Returns the key of the protected resource the failed operation was about.
     *
     * @return the key, or empty when the failure was not about one key (e.g. creating the table)
     */
    public Optional<String> resourceKey() {
        return Optional.ofNullable(resourceKey);
    }

    /**
     * Returns the fencing token the caller presented.
     *
     * @return the token, or empty when the failed operation carried none
     */
    public OptionalLong token() {
        return token > 0 ? OptionalLong.of(token) : OptionalLong.empty();
    }
}

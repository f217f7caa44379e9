package io.zkfence.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A unit of work that {@link JdbcFence#inTransaction} runs after the fence has accepted the
 * token, in the same transaction.
 *
 * <p>The work must use the connection it is given for every write it wants protected, and must
 * not commit, roll back, close it or change its auto-commit mode: the fence owns the
 * transaction. Throwing anything rolls the whole transaction back, the fence advance included.
 *
 * @param <T> the result type; use {@code Void} and return {@code null} for none
 */
@FunctionalInterface
public interface FencedWork<T> {

    /**
     * Performs the protected writes.
     *
     * @param connection the transaction's connection, auto-commit off, fence already advanced
     * @return the result handed back by {@link JdbcFence#inTransaction}
     * @throws SQLException on a database error; it is translated into a {@link JdbcFenceException}
     *                      ({@link SerializationConflictException} when retryable)
     */
    T execute(Connection connection) throws SQLException;
}

package io.zkfence.jdbc;

import java.sql.Connection;
import java.util.Objects;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;

/**
 * The fence from jOOQ code: the only types of this module, with {@link TokenColumn}, whose
 * signatures name jOOQ classes, so that {@link JdbcFence} and {@link FenceDialect} load and reflect
 * (Spring, Jackson) on a class path without jOOQ, an optional dependency.
 */
public final class JooqFence {

    private JooqFence() {}

    /**
     * Advances the fence inside a jOOQ-managed transaction: call it first thing in
     * {@code dsl.transaction(trx -> ...)} with {@code trx.dsl()}. Runs
     * {@link JdbcFence#advance(Connection, String, long)} on the connection the context's
     * connection provider hands out, so outside a transaction (auto-commit) it fails with
     * {@link IllegalStateException}. The fence's SQL is its own, the statement resources of its
     * dialect; the context's settings do not apply to it.
     *
     * @param fence the fence
     * @param dsl   the transaction's context
     * @param key   the protected resource's key
     * @param token the caller's fencing token, 1 or more
     * @throws IllegalStateException          if the context's connection is in auto-commit mode
     * @throws JdbcStaleTokenException            if a higher token was already accepted
     * @throws SerializationConflictException if the database aborted the transaction; retry
     * @throws FenceTableMissingException     if the fence table does not exist
     * @throws JdbcFenceException                 on other database failures
     * @throws IllegalArgumentException       for a null, blank or too long key or a token below 1
     */
    public static void advance(JdbcFence fence, DSLContext dsl, String key, long token) {
        Objects.requireNonNull(fence, "fence");
        Objects.requireNonNull(dsl, "dsl");
        Arguments.requireKey(key);
        Arguments.requireToken(key, token);
        dsl.connection(c -> fence.advance(c, key, token));
    }

    /**
     * The jOOQ dialect of a database the fence supports, for a {@code DSLContext} and
     * {@link TokenColumn}.
     *
     * @param dialect the fence's dialect
     * @return the jOOQ dialect of that database
     */
    public static SQLDialect sqlDialect(FenceDialect dialect) {
        return SQLDialect.valueOf(Objects.requireNonNull(dialect, "dialect").jooqDialectName());
    }

    /**
     * The dialect of the database a jOOQ context renders for, for what depends on the database
     * (vendor error codes): the one mapping from jOOQ dialects, by {@link #sqlDialect} family.
     * MySQL is refused like any other unsupported database: its syntax is close to MariaDB's, but
     * no MySQL server is tested.
     *
     * @param what the call being made, for the message
     * @throws IllegalArgumentException if the context's dialect is not a supported database
     */
    static FenceDialect dialectOf(DSLContext dsl, String what) {
        SQLDialect family = dsl.family();
        for (FenceDialect dialect : FenceDialect.values()) {
            if (sqlDialect(dialect).family() == family) {
                return dialect;
            }
        }
        throw new IllegalArgumentException(what + ": the jOOQ context's dialect " + dsl.dialect()
                + " is not a database the fence supports (supported: " + FenceDialect.SUPPORTED + "; create the context"
                + " with SQLDialect.POSTGRES, SQLDialect.MARIADB or SQLDialect.H2"
                + (family == SQLDialect.MYSQL ? ", and MARIADB only against MariaDB: MySQL is not tested" : "")
                + "); nothing was sent");
    }
}

package io.zkfence.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * The fence's one algorithm: advance the resource's row to the presented token inside the
 * caller's transaction, or say exactly why not.
 *
 * <p>The hot path is a single conditional UPDATE whose matched-row count is the accept signal
 * on every dialect (no upsert: MariaDB has no conditional {@code ON CONFLICT ... WHERE}, and its
 * {@code ON DUPLICATE KEY UPDATE} with a CASE turns a rejection into a silent no-op). Only when
 * it matches nothing does a locking read tell "stale" from "no row yet", and only a brand-new key
 * needs an INSERT.
 */
final class FenceAdvance {

    /**
     * Rounds of update, read, insert. A second round is needed only when another transaction
     * created the same new key concurrently; losing the insert in the second round too means the
     * row is invisible to this transaction's snapshot, a serialization conflict. The bound is a
     * safeguard only.
     */
    private static final int MAX_ROUNDS = 3;

    private final FenceConfig config;
    private final FenceStatements sql;

    FenceAdvance(FenceConfig config) {
        this.config = config;
        this.sql = new FenceStatements(config);
    }

    FenceConfig config() {
        return config;
    }

    /** Advances the fence of {@code key} to {@code token} in the connection's open transaction. */
    void advance(Connection c, String key, long token) {
        try {
            if (c.getAutoCommit()) {
                throw new IllegalStateException("connection is in auto-commit mode, so fencing resource '" + key
                        + "' with token " + token + " would not be atomic with the writes it protects;"
                        + " run it inside a transaction (setAutoCommit(false), @Transactional, dsl.transaction(...))"
                        + " or use JdbcFence.inTransaction");
            }
            SQLException lostBefore = null;
            for (int round = 1; round <= MAX_ROUNDS; round++) {
                if (execute(c, sql.advance, key, token) > 0) {
                    return;
                }
                OptionalLong stored = query(c, sql.lockedRead, key, token);
                if (stored.isPresent()) {
                    if (stored.getAsLong() > token) {
                        throw new JdbcStaleTokenException(key, token, stored.getAsLong(), config.qualifiedTable());
                    }
                    // The row admits the token and is now locked by us, so the advance cannot
                    // lose any more. We get here when the row was created by another transaction
                    // after our UPDATE looked, or when the driver counts changed rather than
                    // matched rows (MariaDB's useAffectedRows) and nothing changed.
                    execute(c, sql.advance, key, token);
                    return;
                }
                SQLException duplicate = insert(c, key, token);
                if (duplicate == null) {
                    return;
                }
                if (lostBefore != null) {
                    // The row exists (the insert collides with it) yet neither the update nor the
                    // locking read can see it: it was committed after this transaction's snapshot
                    // (H2 at REPEATABLE READ or SERIALIZABLE). PostgreSQL and MariaDB abort the
                    // same interleaving as a serialization failure, and so do we: a new
                    // transaction will see the row.
                    throw new SerializationConflictException(
                            "advancing the fence for resource '" + key
                                    + "' with token " + token + " on " + config.qualifiedTable()
                                    + " hit a serialization conflict with a concurrent transaction (the key's row was created"
                                    + " by a transaction that committed after this transaction's snapshot, so it cannot be"
                                    + " seen nor created here); retry the whole unit of work in a new transaction with the"
                                    + " same token (a transaction the fence manages is rolled back; roll back your own)",
                            key,
                            token,
                            duplicate);
                }
                // Lost the race to create the row: it exists now, go round again.
                lostBefore = duplicate;
            }
            throw new JdbcFenceException(
                    "could not advance the fence for resource '" + key + "' to token " + token
                            + " on " + config.qualifiedTable() + " in " + MAX_ROUNDS
                            + " rounds: its row kept disappearing between statements (is something deleting fence rows?)",
                    key,
                    token,
                    null);
        } catch (SQLException e) {
            throw SqlErrors.translate(config, e, key, token, "advancing the fence");
        }
    }

    /** Reads the stored token without locking. */
    OptionalLong read(Connection c, String key) {
        try {
            return query(c, sql.read, key, 0);
        } catch (SQLException e) {
            throw SqlErrors.translate(config, e, key, 0, "reading the fence");
        }
    }

    /** Inserts the key's row: null on success, the duplicate-key error when the row already exists. */
    private SQLException insert(Connection c, String key, long token) throws SQLException {
        try {
            if (execute(c, sql.insert, key, token) > 0) {
                return null;
            }
            // PostgreSQL's ON CONFLICT DO NOTHING: no row inserted means the row exists.
            return new SQLException("the row of resource '" + key + "' already exists", "23505");
        } catch (SQLException e) {
            if (SqlErrors.isDuplicateKey(config.dialect(), e)) {
                return e;
            }
            throw e;
        }
    }

    private int execute(Connection c, FenceStatements.Rendered statement, String key, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement.sql())) {
            statement.bind(ps, key, token, config.holderLabel());
            return ps.executeUpdate();
        }
    }

    private OptionalLong query(Connection c, FenceStatements.Rendered statement, String key, long token)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement.sql())) {
            statement.bind(ps, key, token, config.holderLabel());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }
}

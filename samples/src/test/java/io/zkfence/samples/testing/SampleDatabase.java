package io.zkfence.samples.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zkfence.testing.PostgresServer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The test JVM's one embedded PostgreSQL (test-support's {@link PostgresServer#shared()}, a real
 * postgres process), with a HikariCP pool on its {@code postgres} database, closed when the JVM
 * exits. Tests keep apart by using their own keys (SKUs, payment ids).
 */
public final class SampleDatabase {

    private static SampleDatabase shared;

    private final PostgresServer server;
    private final HikariDataSource pool;

    private SampleDatabase(PostgresServer server) {
        this.server = server;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server.jdbcUrl());
        config.setUsername(PostgresServer.USER);
        config.setMaximumPoolSize(16);
        this.pool = new HikariDataSource(config);
    }

    public static synchronized SampleDatabase shared() {
        if (shared == null) {
            SampleDatabase db = new SampleDatabase(PostgresServer.shared());
            Runtime.getRuntime().addShutdownHook(new Thread(db.pool::close, "close-sample-database-pool"));
            shared = db;
        }
        return shared;
    }

    public HikariDataSource pool() {
        return pool;
    }

    public String jdbcUrl() {
        return server.jdbcUrl();
    }

    /** Runs one statement with parameters (test setup). */
    public int update(String sql, Object... values) {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                ps.setObject(i + 1, values[i]);
            }
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** The single long (count, sum, ...) a query returns. */
    public long queryLong(String sql, Object... values) {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                ps.setObject(i + 1, values[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no row: " + sql);
                }
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}

package io.zkfence.samples.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * One embedded PostgreSQL per test JVM (a real postgres process), with a HikariCP pool, stopped
 * when the JVM exits. Tests keep apart by using their own keys (SKUs, payment ids).
 */
public final class SampleDatabase {

    private static SampleDatabase shared;

    private final EmbeddedPostgres server;
    private final HikariDataSource pool;

    private SampleDatabase(EmbeddedPostgres server) {
        this.server = server;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl(server));
        config.setUsername("postgres");
        config.setMaximumPoolSize(16);
        this.pool = new HikariDataSource(config);
    }

    public static synchronized SampleDatabase shared() {
        if (shared == null) {
            try {
                // A generous start-up wait: on a loaded 2-core machine initdb and start take more
                // than the library's 10 s default.
                shared = new SampleDatabase(EmbeddedPostgres.builder().setPGStartupWait(Duration.ofSeconds(60)).start());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
            }
            SampleDatabase db = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(db::stop));
        }
        return shared;
    }

    private static String jdbcUrl(EmbeddedPostgres server) {
        return server.getJdbcUrl("postgres", "postgres");
    }

    public HikariDataSource pool() {
        return pool;
    }

    public String jdbcUrl() {
        return jdbcUrl(server);
    }

    /** Creates an empty database {@code name} on the same server, for tests that need their own. */
    public DataSource createDatabase(String name) {
        update("create database " + name);
        return server.getDatabase("postgres", name);
    }

    /** The JDBC URL of database {@code name} on this server. */
    public String jdbcUrl(String name) {
        return server.getJdbcUrl("postgres", name);
    }

    /** Runs one statement with parameters (test setup). */
    public int update(String sql, Object... values) {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
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
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
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

    private void stop() {
        pool.close();
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

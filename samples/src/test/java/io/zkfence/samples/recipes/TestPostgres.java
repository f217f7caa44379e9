package io.zkfence.samples.recipes;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/** One embedded PostgreSQL per test JVM, a fresh database per test, and a way to read rows. */
final class TestPostgres {

    private static EmbeddedPostgres server;

    final String name;
    final DataSource dataSource;

    private TestPostgres(String name, DataSource dataSource) {
        this.name = name;
        this.dataSource = dataSource;
    }

    static synchronized TestPostgres freshDatabase() {
        if (server == null) {
            try {
                server = EmbeddedPostgres.builder().start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
            }
            EmbeddedPostgres s = server;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    s.close();
                } catch (IOException e) {
                    // exiting anyway
                }
            }));
        }
        String name = "s_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        try (Connection c = server.getPostgresDatabase().getConnection(); Statement st = c.createStatement()) {
            st.execute("create database " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return new TestPostgres(name, server.getDatabase("postgres", name));
    }

    String jdbcUrl() {
        return server.getJdbcUrl("postgres", name);
    }

    /** The rows of a query, each as its columns joined by '|'. */
    List<String> rows(String sql) {
        List<String> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= columns; i++) {
                    row.append(i > 1 ? "|" : "").append(rs.getString(i));
                }
                rows.add(row.toString());
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
        return rows;
    }

    void execute(String sql) {
        SampleDatabase.execute(dataSource, sql);
    }
}

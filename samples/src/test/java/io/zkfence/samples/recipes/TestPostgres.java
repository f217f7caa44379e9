package io.zkfence.samples.recipes;

import io.zkfence.testing.PostgresDatabase;
import io.zkfence.testing.PostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** A fresh database per test on the samples' one embedded PostgreSQL, and a way to read rows. */
final class TestPostgres {

    final String name;
    final DataSource dataSource;
    private final String jdbcUrl;

    private TestPostgres(String name, DataSource dataSource, String jdbcUrl) {
        this.name = name;
        this.dataSource = dataSource;
        this.jdbcUrl = jdbcUrl;
    }

    static TestPostgres freshDatabase() {
        // On the samples' one embedded PostgreSQL, the one SampleDatabase (in samples.testing) pools.
        PostgresDatabase db = PostgresServer.shared().freshDatabase();
        return new TestPostgres(db.name(), db.dataSource(), db.jdbcUrl());
    }

    String jdbcUrl() {
        return jdbcUrl;
    }

    /** The rows of a query, each as its columns joined by '|'. */
    List<String> rows(String sql) {
        List<String> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
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

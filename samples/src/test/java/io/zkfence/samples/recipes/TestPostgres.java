package io.zkfence.samples.recipes;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
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
        // The samples' one embedded PostgreSQL (not this package's SampleDatabase helper).
        io.zkfence.samples.testing.SampleDatabase server = io.zkfence.samples.testing.SampleDatabase.shared();
        String name = "s_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        return new TestPostgres(name, server.createDatabase(name), server.jdbcUrl(name));
    }

    String jdbcUrl() {
        return jdbcUrl;
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

package io.zkfence.samples.recipes;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** Plumbing shared by the recipe samples' main methods: a PostgreSQL data source and DDL. */
final class SampleDatabase {

    private SampleDatabase() {}

    static DataSource postgres(String jdbcUrl, String user, String password) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(jdbcUrl);
        ds.setUser(user);
        ds.setPassword(password);
        return ds;
    }

    static void execute(DataSource dataSource, String sql) {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("failed: " + sql, e);
        }
    }
}

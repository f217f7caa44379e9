package io.zkfence.recipes.migration;

import io.zkfence.recipes.testing.ZooKeeperTestBase;
import io.zkfence.testing.PostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.migration.JavaMigration;
import org.junit.jupiter.api.BeforeEach;

/** A fresh PostgreSQL database and migration lock per test, and ways to look at what was applied. */
abstract class MigrationTestBase extends ZooKeeperTestBase {

    protected DataSource db;
    protected String lockName;

    @BeforeEach
    void freshDatabase() {
        db = PostgresServer.shared().freshDatabase().dataSource();
        lockName = "db-migration:" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Flyway on the test database: SQL steps V1 and V3 from db/recipes, and the given Java V2. */
    protected FluentConfiguration flyway(JavaMigration v2) {
        return Flyway.configure()
                .dataSource(db)
                .locations("classpath:db/recipes")
                .javaMigrations(v2);
    }

    /** How many times each step's statements were committed. */
    protected Map<String, Integer> stepCounts() {
        Map<String, Integer> counts = new TreeMap<>();
        query(
                "select step, count(*) from applied_steps group by step",
                rs -> counts.put(rs.getString(1), rs.getInt(2)));
        return counts;
    }

    /** Flyway's history, as "version:success" in the order applied. */
    protected List<String> history() {
        List<String> rows = new ArrayList<>();
        query(
                "select version, success from flyway_schema_history order by installed_rank",
                rs -> rows.add(rs.getString(1) + ":" + rs.getBoolean(2)));
        return rows;
    }

    protected boolean tableExists(String table) {
        List<String> found = new ArrayList<>();
        query(
                "select table_name from information_schema.tables where table_name = '" + table + "'",
                rs -> found.add(rs.getString(1)));
        return !found.isEmpty();
    }

    private interface Row {
        void read(ResultSet rs) throws SQLException;
    }

    private void query(String sql, Row row) {
        try (Connection c = db.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                row.read(rs);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }
}

package io.zkfence.jdbc;

import io.zkfence.jdbc.EngineErrors.Codes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Objects;

/**
 * The SQL databases the fence supports, each tested against a real server by this module's
 * test suite.
 *
 * <p>Each dialect ships the fence table's DDL as a classpath resource
 * ({@link #ddlResource()}), written with the default names of {@link FenceConfig}, so it can be
 * copied into Flyway or Liquibase migrations as it is, and the four fence statements beside it
 * ({@code fence_advance.sql}, {@code fence_locked_read.sql}, {@code fence_insert.sql},
 * {@code fence_read.sql}), run with plain JDBC. Each constant also says what its engine's error
 * codes mean. Nothing here needs jOOQ: the jOOQ side is {@link JooqFence}, so that no signature of
 * this type names a jOOQ class (frameworks that reflect over it need no jOOQ either).
 */
public enum FenceDialect {

    /** PostgreSQL 12 or newer (tested on 14). */
    POSTGRES(
            "POSTGRES",
            "postgres",
            new EngineErrors(
                    Codes.states("40001", "40P01"), // serialization_failure, deadlock_detected
                    Codes.states("55P03"), // lock_not_available: lock_timeout, NOWAIT
                    Codes.states("42P01"), // undefined_table, also for a missing schema
                    Codes.states("42703"), // undefined_column
                    Codes.states("23505"), // unique_violation
                    // duplicate_table, duplicate_object, or a unique violation on a system catalog (e.g.
                    // pg_type_typname_nsp_index) when a concurrent creator committed while this one waited
                    Codes.states("42P07", "42710", "23505"))),

    /**
     * MariaDB 10.6 or newer with InnoDB (tested on 11.4). The key column uses the binary,
     * no-pad collation {@code utf8mb4_nopad_bin}, so keys differing only in case or trailing
     * spaces are different resources, as on the other dialects.
     */
    MARIADB(
            "MARIADB",
            "mariadb",
            new EngineErrors(
                    // ER_CHECKREAD (innodb_snapshot_isolation, REPEATABLE READ), ER_LOCK_DEADLOCK
                    Codes.states("40001", "40P01").orVendor(1020, 1213),
                    Codes.vendor(1205), // ER_LOCK_WAIT_TIMEOUT: innodb_lock_wait_timeout
                    Codes.vendor(1146), // ER_NO_SUCH_TABLE, also for a missing schema
                    Codes.vendor(1054), // ER_BAD_FIELD_ERROR
                    Codes.vendor(1062), // ER_DUP_ENTRY
                    Codes.vendor(1050))), // ER_TABLE_EXISTS_ERROR

    /** H2 2.x (tested on 2.5), in any mode that keeps H2's own identifier case rules. */
    H2(
            "H2",
            "h2",
            new EngineErrors(
                    // most snapshot conflicts are 40001; CONCURRENT_UPDATE_1 (90131) the others
                    Codes.states("40001", "40P01").orVendor(90131),
                    Codes.vendor(50200), // LOCK_TIMEOUT_1
                    // TABLE_OR_VIEW_NOT_FOUND_1, ..._DATABASE_EMPTY_1, SCHEMA_NOT_FOUND_1 (the others
                    // report a missing schema as a missing table, and so does the fence)
                    Codes.vendor(42102, 42104, 90079),
                    Codes.vendor(42122), // COLUMN_NOT_FOUND_1
                    Codes.vendor(23505), // DUPLICATE_KEY_1
                    Codes.vendor(42101))); // TABLE_OR_VIEW_ALREADY_EXISTS_1

    static final String SUPPORTED = "PostgreSQL, MariaDB, H2";

    /** The name of the jOOQ SQLDialect constant, resolved only when jOOQ is used. */
    private final String jooqDialect;

    private final String folder;
    private final EngineErrors errors;

    FenceDialect(String jooqDialect, String folder, EngineErrors errors) {
        this.jooqDialect = jooqDialect;
        this.folder = folder;
        this.errors = errors;
    }

    /** The name of this database's jOOQ {@code SQLDialect} ({@link JooqFence#sqlDialect(FenceDialect)}). */
    String jooqDialectName() {
        return jooqDialect;
    }

    /** What this engine's errors mean. */
    EngineErrors errors() {
        return errors;
    }

    /** The class path location of one of this dialect's SQL scripts, e.g. {@code fence_advance.sql}. */
    String resource(String fileName) {
        return "io/zkfence/jdbc/" + folder + "/" + fileName;
    }

    /**
     * Returns the classpath location of the fence table's DDL for this dialect, e.g.
     * {@code io/zkfence/jdbc/postgres/zkfence_fence.sql}. The script uses the default table and
     * column names and {@code CREATE TABLE IF NOT EXISTS}.
     *
     * @return a resource path usable with {@link ClassLoader#getResource(String)}
     */
    public String ddlResource() {
        return resource("zkfence_fence.sql");
    }

    /**
     * Returns the text of {@link #ddlResource()}.
     *
     * @return the DDL script with the default names
     * @throws UncheckedIOException if the resource cannot be read
     */
    public String ddl() {
        return text(ddlResource());
    }

    /** The text of a class path resource of this module. */
    static String text(String resource) {
        try (InputStream in = FenceDialect.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new UncheckedIOException(new IOException("missing classpath resource " + resource));
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    /**
     * Detects the dialect of the database a connection points at, from its JDBC metadata.
     *
     * @param connection an open connection; it is not modified
     * @return the matching dialect
     * @throws IllegalArgumentException if the database is not one of the supported ones
     * @throws JdbcFenceException if the metadata cannot be read
     */
    public static FenceDialect detect(Connection connection) {
        Objects.requireNonNull(connection, "connection");
        String product;
        try {
            product = connection.getMetaData().getDatabaseProductName();
        } catch (SQLException e) {
            throw new JdbcFenceException(
                    "cannot read the database product name to detect the fence dialect", null, 0, e);
        }
        String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (p.contains("postgres")) {
            return POSTGRES;
        }
        if (p.contains("mariadb")) {
            return MARIADB;
        }
        if (p.equals("h2")) {
            return H2;
        }
        throw new IllegalArgumentException(
                "unsupported database '" + product + "' for the fence; supported: " + SUPPORTED);
    }
}

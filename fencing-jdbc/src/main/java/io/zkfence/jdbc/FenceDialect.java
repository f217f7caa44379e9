package io.zkfence.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Objects;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;

/**
 * The SQL databases the fence supports, each tested against a real server by this module's
 * test suite.
 *
 * <p>Each dialect ships the fence table's DDL as a classpath resource
 * ({@link #ddlResource()}), written with the default names of {@link FenceConfig}, so it can be
 * copied into Flyway or Liquibase migrations as it is.
 */
public enum FenceDialect {

    /** PostgreSQL 12 or newer (tested on 14). */
    POSTGRES(SQLDialect.POSTGRES, "postgres"),

    /**
     * MariaDB 10.6 or newer with InnoDB (tested on 11.4). The key column uses the binary,
     * no-pad collation {@code utf8mb4_nopad_bin}, so keys differing only in case or trailing
     * spaces are different resources, as on the other dialects.
     */
    MARIADB(SQLDialect.MARIADB, "mariadb"),

    /** H2 2.x (tested on 2.5), in any mode that keeps H2's own identifier case rules. */
    H2(SQLDialect.H2, "h2");

    private static final String SUPPORTED = "PostgreSQL, MariaDB, H2";

    private final SQLDialect sqlDialect;
    private final String folder;

    FenceDialect(SQLDialect sqlDialect, String folder) {
        this.sqlDialect = sqlDialect;
        this.folder = folder;
    }

    /**
     * Returns the jOOQ dialect used to render this dialect's statements.
     *
     * @return the jOOQ dialect
     */
    public SQLDialect sqlDialect() {
        return sqlDialect;
    }

    /**
     * Returns the classpath location of the fence table's DDL for this dialect, e.g.
     * {@code io/zkfence/jdbc/postgres/zkfence_fence.sql}. The script uses the default table and
     * column names and {@code CREATE TABLE IF NOT EXISTS}.
     *
     * @return a resource path usable with {@link ClassLoader#getResource(String)}
     */
    public String ddlResource() {
        return "io/zkfence/jdbc/" + folder + "/zkfence_fence.sql";
    }

    /**
     * Returns the text of {@link #ddlResource()}.
     *
     * @return the DDL script with the default names
     * @throws UncheckedIOException if the resource cannot be read
     */
    public String ddl() {
        try (InputStream in = FenceDialect.class.getClassLoader().getResourceAsStream(ddlResource())) {
            if (in == null) {
                throw new UncheckedIOException(new IOException("missing classpath resource " + ddlResource()));
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + ddlResource(), e);
        }
    }

    /**
     * Detects the dialect of the database a connection points at, from its JDBC metadata.
     *
     * @param connection an open connection; it is not modified
     * @return the matching dialect
     * @throws IllegalArgumentException if the database is not one of the supported ones
     * @throws FenceException if the metadata cannot be read
     */
    public static FenceDialect detect(Connection connection) {
        Objects.requireNonNull(connection, "connection");
        String product;
        try {
            product = connection.getMetaData().getDatabaseProductName();
        } catch (SQLException e) {
            throw new FenceException("cannot read the database product name to detect the fence dialect", null, 0, e);
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
        throw new IllegalArgumentException("unsupported database '" + product
                + "' for the fence; supported: " + SUPPORTED);
    }

    /**
     * The dialect of the database a jOOQ context renders for, for what depends on the database
     * (vendor error codes). The one mapping from jOOQ dialects: each constant's
     * {@link #sqlDialect()} family. MySQL is refused like any other unsupported database: its
     * syntax is close to MariaDB's, but no MySQL server is tested.
     *
     * @param what the call being made, for the message
     * @throws IllegalArgumentException if the context's dialect is not a supported database
     */
    static FenceDialect of(DSLContext dsl, String what) {
        SQLDialect family = dsl.family();
        for (FenceDialect dialect : values()) {
            if (dialect.sqlDialect.family() == family) {
                return dialect;
            }
        }
        throw new IllegalArgumentException(what + ": the jOOQ context's dialect " + dsl.dialect()
                + " is not a database the fence supports (supported: " + SUPPORTED + "; create the context with"
                + " SQLDialect.POSTGRES, SQLDialect.MARIADB or SQLDialect.H2"
                + (family == SQLDialect.MYSQL ? ", and MARIADB only against MariaDB: MySQL is not tested" : "")
                + "); nothing was sent");
    }
}

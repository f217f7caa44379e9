package io.zkfence.samples;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** Creates a sample's tables from its {@code schema.sql} (what a migration tool would do in an application). */
public final class Schema {

    private Schema() {}

    /** Runs the statements of the classpath resource {@code schema.sql} next to {@code sample}. */
    public static void apply(DataSource dataSource, Class<?> sample) {
        String script;
        try (InputStream in = sample.getResourceAsStream("schema.sql")) {
            if (in == null) {
                throw new IllegalArgumentException("no schema.sql next to " + sample.getName());
            }
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the schema of " + sample.getName(), e);
        }
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            for (String statement : script.split(";")) {
                if (!statement.isBlank()) {
                    s.execute(statement);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot create the tables of " + sample.getName() + ": " + e.getMessage(), e);
        }
    }
}

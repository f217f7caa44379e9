package io.zkfence.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The fence's four statements for a configuration, read from the dialect's SQL resources beside
 * its DDL ({@code io/zkfence/jdbc/<dialect>/fence_*.sql}) and run as plain JDBC prepared
 * statements: one round trip on the hot path, no SQL library needed.
 *
 * <p>Each resource is one statement with {@code ?} placeholders, written with the default names
 * (replaced like the DDL's, see {@link SqlScript}), and a comment line that lists what each
 * placeholder binds, in order:
 * <pre>{@code
 * -- binds: token, holder, key, token
 * UPDATE zkfence_fence SET fence_token = ?, holder = ?, ... WHERE ... resource_key = ? AND ... fence_token <= ?
 * }</pre>
 * The list is the statement's contract; loading checks that it names one value per placeholder.
 */
final class FenceStatements {

    /** The values a fence statement binds. */
    enum Bind {
        /** The resource key, a string. */
        KEY,
        /** The presented fencing token, a long. */
        TOKEN,
        /** This process's holder label, a string. */
        HOLDER
    }

    private static final String BINDS = "-- binds:";

    /** A statement's SQL with '?' placeholders and the value each placeholder binds, in order. */
    record Rendered(String sql, List<Bind> binds) {

        void bind(PreparedStatement ps, String key, long token, String holder) throws SQLException {
            for (int i = 0; i < binds.size(); i++) {
                switch (binds.get(i)) {
                    case KEY -> ps.setString(i + 1, key);
                    case TOKEN -> ps.setLong(i + 1, token);
                    case HOLDER -> ps.setString(i + 1, holder);
                }
            }
        }
    }

    /** {@code UPDATE fence SET token=?, holder=?, updated_at=now WHERE key=? AND token<=?}. */
    final Rendered advance;
    /** {@code SELECT token FROM fence WHERE key=? FOR UPDATE}. */
    final Rendered lockedRead;
    /** Inserts a new fence row; on PostgreSQL with {@code ON CONFLICT DO NOTHING}. */
    final Rendered insert;
    /** {@code SELECT token FROM fence WHERE key=?} without locks. */
    final Rendered read;

    FenceStatements(FenceConfig config) {
        this.advance = load(config, "fence_advance.sql");
        this.lockedRead = load(config, "fence_locked_read.sql");
        this.insert = load(config, "fence_insert.sql");
        this.read = load(config, "fence_read.sql");
    }

    private static Rendered load(FenceConfig config, String fileName) {
        String resource = config.dialect().resource(fileName);
        String script = FenceDialect.text(resource);
        List<Bind> binds = null;
        for (String line : script.split("\n")) {
            if (line.strip().startsWith(BINDS)) {
                if (binds != null) {
                    throw new IllegalStateException(resource + " has more than one '" + BINDS + "' line");
                }
                binds = binds(resource, line.strip().substring(BINDS.length()));
            }
        }
        if (binds == null) {
            throw new IllegalStateException(resource + " lacks its '" + BINDS + " ...' line");
        }
        String sql = SqlScript.code(config, script).strip();
        if (sql.endsWith(";")) {
            sql = sql.substring(0, sql.length() - 1).strip();
        }
        sql = sql.replaceAll("\\s+", " ");
        long placeholders = sql.chars().filter(c -> c == '?').count();
        if (placeholders != binds.size()) {
            throw new IllegalStateException(resource + " has " + placeholders + " placeholders but binds " + binds);
        }
        return new Rendered(sql, List.copyOf(binds));
    }

    private static List<Bind> binds(String resource, String list) {
        List<Bind> binds = new ArrayList<>();
        for (String name : list.split(",")) {
            String n = name.strip().toUpperCase(Locale.ROOT);
            try {
                binds.add(Bind.valueOf(n));
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(
                        resource + " binds unknown value '" + name.strip() + "' (known: key, token, holder)", e);
            }
        }
        return binds;
    }
}

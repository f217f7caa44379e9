package io.zkfence.recipes.cache;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * A {@link CacheStore} in a SQL table, fenced with fencing-jdbc: every write runs in a
 * {@link JdbcFence#inTransaction} on the fence key {@code "cache:rebuild:" + key} (the rebuild
 * lock's name), so a write with a token lower than one already accepted for the key is rejected
 * and changes nothing, atomically with the row it would have written.
 *
 * <p>The table (default {@value #DEFAULT_TABLE}; {@link #createTableIfMissing()} creates it):
 * <pre>
 * cache_key   VARCHAR(255) PRIMARY KEY
 * cache_value TEXT         -- the encoder's output
 * written_at  BIGINT       -- epoch milliseconds
 * token       BIGINT       -- the token of the rebuild that wrote it
 * </pre>
 *
 * <p>Values are stored as text: pass an encoder and a decoder (JSON, or {@code Function.identity()}
 * for strings). Works on PostgreSQL, MariaDB and H2. Thread-safe.
 *
 * @param <V> the value type
 */
public final class JdbcCacheStore<V> implements CacheStore<V> {

    /** The default table name. */
    public static final String DEFAULT_TABLE = "zkfence_cache";

    private static final Pattern TABLE =
            Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final DataSource dataSource;
    private final JdbcFence fence;
    private final String table;
    private final Function<? super V, String> encoder;
    private final Function<String, ? extends V> decoder;

    private JdbcCacheStore(
            DataSource dataSource,
            JdbcFence fence,
            String table,
            Function<? super V, String> encoder,
            Function<String, ? extends V> decoder) {
        this.dataSource = dataSource;
        this.fence = fence;
        this.table = table;
        this.encoder = encoder;
        this.decoder = decoder;
    }

    /**
     * A store in the given table.
     *
     * @param dataSource the database with the cache table and the fence table
     * @param fence      the fence on that same database (its transactions must include the row)
     * @param table      the cache table, {@code name} or {@code schema.name}, letters, digits and
     *                   underscores
     * @param encoder    turns a value into the text stored
     * @param decoder    turns the stored text back into a value
     * @param <V>        the value type
     * @throws IllegalArgumentException if the table name is not a plain identifier
     */
    public static <V> JdbcCacheStore<V> create(
            DataSource dataSource,
            JdbcFence fence,
            String table,
            Function<? super V, String> encoder,
            Function<String, ? extends V> decoder) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(fence, "fence");
        Objects.requireNonNull(encoder, "encoder");
        Objects.requireNonNull(decoder, "decoder");
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("table must be an identifier or schema.identifier of letters, digits and"
                    + " underscores, was " + (table == null ? "null" : "\"" + table + "\""));
        }
        return new JdbcCacheStore<>(dataSource, fence, table, encoder, decoder);
    }

    /**
     * Creates the cache table and the fence table if they do not exist. Idempotent, also when
     * several processes call it at once.
     *
     * @throws IllegalStateException if the DDL fails and the table does not exist
     */
    public void createTableIfMissing() {
        fence.createIfMissing();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            try {
                s.execute("create table if not exists " + table + " (cache_key varchar(255) not null primary key,"
                        + " cache_value text not null, written_at bigint not null, token bigint not null)");
            } catch (SQLException e) {
                // A concurrent creator may win between IF NOT EXISTS and the create (PostgreSQL).
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
                s.executeQuery("select cache_key from " + table + " where 1 = 0")
                        .close();
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("creating cache table " + table + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<CachedValue<V>> read(String key) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement(
                        "select cache_value, written_at, token from " + table + " where cache_key = ?")) {
            s.setString(1, key);
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new CachedValue<>(
                        decoder.apply(rs.getString(1)), Instant.ofEpochMilli(rs.getLong(2)), rs.getLong(3)));
            }
        } catch (SQLException e) {
            throw new CacheRebuildException(key, "reading cache table " + table + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Writes the value in one fenced transaction: advances the fence of
     * {@code "cache:rebuild:" + key} with the value's token, then updates or inserts the row.
     * The fence row stays locked until the commit, so concurrent writers of a key go one at a
     * time and the insert cannot race.
     */
    @Override
    public boolean write(String key, CachedValue<V> value) {
        String text = Objects.requireNonNull(encoder.apply(value.value()), "the encoder returned null");
        try {
            fence.inTransaction(CacheRebuild.lockName(key), value.token(), c -> {
                try (PreparedStatement u = c.prepareStatement(
                        "update " + table + " set cache_value = ?, written_at = ?, token = ? where cache_key = ?")) {
                    u.setString(1, text);
                    u.setLong(2, value.writtenAt().toEpochMilli());
                    u.setLong(3, value.token());
                    u.setString(4, key);
                    if (u.executeUpdate() == 1) {
                        return null;
                    }
                }
                try (PreparedStatement i = c.prepareStatement(
                        "insert into " + table + " (cache_key, cache_value, written_at, token) values (?, ?, ?, ?)")) {
                    i.setString(1, key);
                    i.setString(2, text);
                    i.setLong(3, value.writtenAt().toEpochMilli());
                    i.setLong(4, value.token());
                    i.executeUpdate();
                }
                return null;
            });
            return true;
        } catch (JdbcStaleTokenException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "JdbcCacheStore{table=" + table + ", fence=" + fence + "}";
    }
}

package io.zkfence.jdbc;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.util.HashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Immutable configuration of a {@link JdbcFence}: where the fence table lives, what its columns
 * are called, which SQL dialect to speak and how to label the rows this process writes.
 *
 * <p>Built with {@link #builder(FenceDialect)}; every setting is validated by
 * {@link Builder#build()}, which throws {@link IllegalArgumentException} naming the setting and
 * the bound. Names are plain SQL identifiers (letters, digits, {@code _}; at most 63 characters;
 * no reserved words) and are rendered unquoted, so the database folds their case exactly as it
 * does for the shipped DDL: {@code zkfence_fence} is {@code ZKFENCE_FENCE} on H2 and
 * {@code zkfence_fence} on PostgreSQL, whichever you write.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code schema}</td><td>none (connection's default)</td><td>schema qualifying the table</td></tr>
 *   <tr><td>{@code table}</td><td>{@code zkfence_fence}</td><td>the fence table, one row per resource key</td></tr>
 *   <tr><td>{@code keyColumn}</td><td>{@code resource_key}</td><td>primary key, {@code VARCHAR(255)}</td></tr>
 *   <tr><td>{@code tokenColumn}</td><td>{@code fence_token}</td><td>highest accepted token, {@code BIGINT}</td></tr>
 *   <tr><td>{@code holderColumn}</td><td>{@code holder}</td><td>label of the last accepted writer, {@code VARCHAR(255)}</td></tr>
 *   <tr><td>{@code updatedAtColumn}</td><td>{@code updated_at}</td><td>database time of the last accepted write</td></tr>
 *   <tr><td>{@code holderLabel}</td><td>{@code pid@host} of this JVM</td><td>written to the holder column, at most 255 characters</td></tr>
 *   <tr><td>{@code transactionIsolation}</td><td>none (connection's own)</td><td>JDBC isolation level for transactions
 *       {@link JdbcFence} manages itself: {@code TRANSACTION_READ_COMMITTED}, {@code TRANSACTION_REPEATABLE_READ}
 *       or {@code TRANSACTION_SERIALIZABLE}</td></tr>
 * </table>
 */
public final class FenceConfig {

    /** Default fence table name. */
    public static final String DEFAULT_TABLE = "zkfence_fence";
    /** Default key column name. */
    public static final String DEFAULT_KEY_COLUMN = "resource_key";
    /** Default token column name. */
    public static final String DEFAULT_TOKEN_COLUMN = "fence_token";
    /** Default holder column name. */
    public static final String DEFAULT_HOLDER_COLUMN = "holder";
    /** Default updated-at column name. */
    public static final String DEFAULT_UPDATED_AT_COLUMN = "updated_at";
    /** Longest holder label, matching the {@code VARCHAR(255)} of the shipped DDL. */
    public static final int MAX_HOLDER_LABEL_LENGTH = 255;

    private final FenceDialect dialect;
    private final String schema;
    private final String table;
    private final String keyColumn;
    private final String tokenColumn;
    private final String holderColumn;
    private final String updatedAtColumn;
    private final String holderLabel;
    private final Integer transactionIsolation;

    private FenceConfig(Builder b) {
        this.dialect = b.dialect;
        this.schema = b.schema;
        this.table = b.table;
        this.keyColumn = b.keyColumn;
        this.tokenColumn = b.tokenColumn;
        this.holderColumn = b.holderColumn;
        this.updatedAtColumn = b.updatedAtColumn;
        this.holderLabel = b.holderLabel;
        this.transactionIsolation = b.transactionIsolation;
    }

    /**
     * Starts a builder with all defaults for a dialect.
     *
     * @param dialect the database's dialect (see {@link FenceDialect#detect(Connection)})
     * @return a new builder
     */
    public static Builder builder(FenceDialect dialect) {
        return new Builder(Objects.requireNonNull(dialect, "dialect"));
    }

    /**
     * Returns a configuration with all defaults for a dialect.
     *
     * @param dialect the database's dialect
     * @return the default configuration
     */
    public static FenceConfig defaults(FenceDialect dialect) {
        return builder(dialect).build();
    }

    /**
     * Returns the SQL dialect the fence's statements are rendered for.
     *
     * @return the dialect
     */
    public FenceDialect dialect() {
        return dialect;
    }

    /**
     * Returns the schema qualifying the fence table.
     *
     * @return the schema, or empty for the connection's default schema
     */
    public Optional<String> schema() {
        return Optional.ofNullable(schema);
    }

    /**
     * Returns the fence table's name.
     *
     * @return the table name, without schema
     */
    public String table() {
        return table;
    }

    /**
     * Returns the table name as used in SQL and in messages.
     *
     * @return {@code schema.table}, or {@code table} without a schema
     */
    public String qualifiedTable() {
        return schema == null ? table : schema + "." + table;
    }

    /**
     * Returns the name of the key column (the primary key).
     *
     * @return the key column's name
     */
    public String keyColumn() {
        return keyColumn;
    }

    /**
     * Returns the name of the column holding the highest accepted token.
     *
     * @return the token column's name
     */
    public String tokenColumn() {
        return tokenColumn;
    }

    /**
     * Returns the name of the column labelling the last accepted writer.
     *
     * @return the holder column's name
     */
    public String holderColumn() {
        return holderColumn;
    }

    /**
     * Returns the name of the column holding the time of the last accepted advance.
     *
     * @return the updated-at column's name
     */
    public String updatedAtColumn() {
        return updatedAtColumn;
    }

    /**
     * Returns the label written to the holder column on every accepted advance.
     *
     * @return the holder label
     */
    public String holderLabel() {
        return holderLabel;
    }

    /**
     * Returns the isolation level for transactions that {@link JdbcFence} manages itself.
     *
     * @return a {@code java.sql.Connection.TRANSACTION_*} constant, or empty to keep the
     *         connection's level
     */
    public OptionalInt transactionIsolation() {
        return transactionIsolation == null ? OptionalInt.empty() : OptionalInt.of(transactionIsolation);
    }

    @Override
    public String toString() {
        return "FenceConfig{dialect=" + dialect + ", table=" + qualifiedTable() + ", columns=[" + keyColumn + ", "
                + tokenColumn + ", " + holderColumn + ", " + updatedAtColumn + "], holderLabel=" + holderLabel
                + ", transactionIsolation="
                + (transactionIsolation == null ? "connection default" : transactionIsolation)
                + "}";
    }

    /** Builder of {@link FenceConfig}; not thread-safe. */
    public static final class Builder {

        private final FenceDialect dialect;
        private String schema;
        private String table = DEFAULT_TABLE;
        private String keyColumn = DEFAULT_KEY_COLUMN;
        private String tokenColumn = DEFAULT_TOKEN_COLUMN;
        private String holderColumn = DEFAULT_HOLDER_COLUMN;
        private String updatedAtColumn = DEFAULT_UPDATED_AT_COLUMN;
        private String holderLabel = defaultHolderLabel();
        private Integer transactionIsolation;

        private Builder(FenceDialect dialect) {
            this.dialect = dialect;
        }

        /**
         * Qualifies the fence table with a schema (a database, on MariaDB).
         *
         * @param schema a plain SQL identifier, or {@code null} for the connection's default
         * @return this builder
         */
        public Builder schema(String schema) {
            this.schema = schema;
            return this;
        }

        /**
         * Sets the fence table's name.
         *
         * @param table a plain SQL identifier; default {@value FenceConfig#DEFAULT_TABLE}
         * @return this builder
         */
        public Builder table(String table) {
            this.table = table;
            return this;
        }

        /**
         * Sets the key column's name.
         *
         * @param column a plain SQL identifier; default {@value FenceConfig#DEFAULT_KEY_COLUMN}
         * @return this builder
         */
        public Builder keyColumn(String column) {
            this.keyColumn = column;
            return this;
        }

        /**
         * Sets the token column's name.
         *
         * @param column a plain SQL identifier; default {@value FenceConfig#DEFAULT_TOKEN_COLUMN}
         * @return this builder
         */
        public Builder tokenColumn(String column) {
            this.tokenColumn = column;
            return this;
        }

        /**
         * Sets the holder column's name.
         *
         * @param column a plain SQL identifier; default {@value FenceConfig#DEFAULT_HOLDER_COLUMN}
         * @return this builder
         */
        public Builder holderColumn(String column) {
            this.holderColumn = column;
            return this;
        }

        /**
         * Sets the updated-at column's name.
         *
         * @param column a plain SQL identifier; default {@value FenceConfig#DEFAULT_UPDATED_AT_COLUMN}
         * @return this builder
         */
        public Builder updatedAtColumn(String column) {
            this.updatedAtColumn = column;
            return this;
        }

        /**
         * Sets the label written to the holder column, for operators reading the table.
         *
         * @param label 1 to {@value FenceConfig#MAX_HOLDER_LABEL_LENGTH} characters, not blank;
         *              default {@code pid@host} of this JVM
         * @return this builder
         */
        public Builder holderLabel(String label) {
            this.holderLabel = label;
            return this;
        }

        /**
         * Sets the isolation level of the transactions {@link JdbcFence} manages itself
         * ({@link JdbcFence#inTransaction} and {@link JdbcFence#claim}). Caller-managed
         * transactions keep whatever level the caller chose.
         *
         * @param level {@link Connection#TRANSACTION_READ_COMMITTED},
         *              {@link Connection#TRANSACTION_REPEATABLE_READ} or
         *              {@link Connection#TRANSACTION_SERIALIZABLE}; default: the connection's
         * @return this builder
         */
        public Builder transactionIsolation(int level) {
            this.transactionIsolation = level;
            return this;
        }

        /**
         * Validates the settings and builds the configuration.
         *
         * @return the immutable configuration
         * @throws IllegalArgumentException naming the first invalid setting
         */
        public FenceConfig build() {
            if (schema != null) {
                Identifiers.require("schema", schema);
            }
            Identifiers.require("table", table);
            Identifiers.require("keyColumn", keyColumn);
            Identifiers.require("tokenColumn", tokenColumn);
            Identifiers.require("holderColumn", holderColumn);
            Identifiers.require("updatedAtColumn", updatedAtColumn);
            Set<String> distinct = new HashSet<>();
            for (String c : new String[] {keyColumn, tokenColumn, holderColumn, updatedAtColumn}) {
                if (!distinct.add(c.toLowerCase(Locale.ROOT))) {
                    throw new IllegalArgumentException(
                            "column name '" + c
                                    + "' is configured for two fence columns; key, token, holder and updated-at columns must differ");
                }
            }
            if (holderLabel == null || holderLabel.isBlank()) {
                throw new IllegalArgumentException("holderLabel must not be blank");
            }
            if (holderLabel.length() > MAX_HOLDER_LABEL_LENGTH) {
                throw new IllegalArgumentException("holderLabel is " + holderLabel.length()
                        + " characters long; the limit is " + MAX_HOLDER_LABEL_LENGTH);
            }
            if (transactionIsolation != null
                    && transactionIsolation != Connection.TRANSACTION_READ_COMMITTED
                    && transactionIsolation != Connection.TRANSACTION_REPEATABLE_READ
                    && transactionIsolation != Connection.TRANSACTION_SERIALIZABLE) {
                throw new IllegalArgumentException("transactionIsolation " + transactionIsolation
                        + " is not supported: use Connection.TRANSACTION_READ_COMMITTED (2), TRANSACTION_REPEATABLE_READ (4)"
                        + " or TRANSACTION_SERIALIZABLE (8); READ UNCOMMITTED would let a unit of work read writes"
                        + " that a fence may still roll back");
            }
            return new FenceConfig(this);
        }

        private static String defaultHolderLabel() {
            // "pid@host" from the runtime bean; cut to the column width rather than failing,
            // since the label is only for people reading the table.
            String name = ManagementFactory.getRuntimeMXBean().getName();
            return name.length() > MAX_HOLDER_LABEL_LENGTH ? name.substring(0, MAX_HOLDER_LABEL_LENGTH) : name;
        }
    }
}

package io.zkfence.jdbc;

/**
 * The fence table configured in {@link FenceConfig} does not exist in the database the connection
 * points at (or is not visible to its user or schema search path).
 *
 * <p>Nothing was written. Create the table with {@link JdbcFence#createIfMissing()} or with the
 * DDL shipped for the dialect ({@link FenceDialect#ddlResource()}) in your migrations; create a
 * configured schema first ({@code createIfMissing} creates the table, not the schema).
 */
public final class FenceTableMissingException extends JdbcFenceException {

    /** The table concerned. */
    private final String table;

    /**
     * Creates the exception.
     *
     * @param table       the (qualified) name of the missing table
     * @param resourceKey the key being fenced, or {@code null}
     * @param token       the presented token, or {@code 0}
     * @param cause       the database's error
     */
    FenceTableMissingException(String table, String resourceKey, long token, Throwable cause) {
        super(
                "fence table '" + table + "' does not exist"
                        + (resourceKey == null
                                ? ""
                                : " (fencing resource '" + resourceKey + "' with token " + token + ")")
                        + "; create it with JdbcFence.createIfMissing() or the DDL resource for your dialect"
                        + (table.contains(".") ? " (after creating its schema, which createIfMissing does not)" : ""),
                resourceKey,
                token,
                cause);
        this.table = table;
    }

    /**
     * Returns the name of the missing table, as configured.
     *
     * @return the table name, schema-qualified when a schema was configured
     */
    public String table() {
        return table;
    }
}

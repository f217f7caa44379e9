package io.zkfence.jdbc;

/**
 * A {@link TokenColumn#update fenced update} of a business table matched no row at all: the row
 * does not exist (as opposed to {@link JdbcStaleTokenException}, where the row exists but carries a
 * higher token).
 *
 * <p>Nothing was written by the update. Whether a missing row is an error is the caller's
 * business; the exception exists so the two outcomes of "zero rows updated" cannot be confused.
 */
public final class RowNotFoundException extends JdbcFenceException {

    /** The table concerned. */
    private final String table;
    /** The row condition, rendered as SQL. */
    private final String rowCondition;

    /**
     * Creates the exception.
     *
     * @param table        the business table
     * @param rowCondition the row condition, rendered as SQL
     * @param token        the presented token
     */
    RowNotFoundException(String table, String rowCondition, long token) {
        super(
                "no row in " + table + " where " + rowCondition + " (fenced update with token " + token
                        + " matched nothing, and no row carries a higher token)",
                table + " where " + rowCondition,
                token,
                null);
        this.table = table;
        this.rowCondition = rowCondition;
    }

    /**
     * Returns the business table that was updated.
     *
     * @return the table's qualified name
     */
    public String table() {
        return table;
    }

    /**
     * Returns the condition that matched no row, rendered as SQL.
     *
     * @return the row condition
     */
    public String rowCondition() {
        return rowCondition;
    }
}

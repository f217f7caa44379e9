package io.zkfence.jdbc;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Validates table and column names. Names are rendered unquoted, so that the database folds
 * their case exactly as it folds the names in the shipped DDL and in the user's own SQL; that
 * is only safe for plain identifiers, so anything else is rejected rather than quoted. This is
 * also what keeps SQL out of the identifiers.
 */
final class Identifiers {

    /** PostgreSQL truncates identifiers beyond 63 bytes; the other dialects allow more. */
    static final int MAX_LENGTH = 63;

    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /**
     * Reserved words of SQL:2016, PostgreSQL, MariaDB and H2 that are plausible table or column
     * names. Used unquoted they would be syntax errors, so they are refused up front with a
     * message instead of a confusing error from the database later.
     */
    private static final Set<String> RESERVED = Set.of(
            "all", "alter", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization",
            "between", "bigint", "binary", "both", "by", "call", "case", "cast", "change", "char",
            "character", "check", "collate", "column", "constraint", "create", "cross", "current",
            "current_catalog", "current_date", "current_role", "current_schema", "current_time",
            "current_timestamp", "current_user", "database", "databases", "day", "default", "delete",
            "desc", "describe", "distinct", "div", "double", "drop", "else", "end", "escape", "except",
            "exists", "explain", "false", "fetch", "file", "float", "for", "force", "foreign", "from",
            "full", "grant", "group", "groups", "having", "hour", "if", "ignore", "ilike", "in", "index",
            "inner", "insert", "int", "integer", "intersect", "interval", "into", "is", "join", "key",
            "keys", "kill", "lateral", "leading", "left", "like", "limit", "load", "localtime",
            "localtimestamp", "lock", "long", "match", "minus", "minute", "mod", "month", "natural", "not",
            "null", "numeric", "of", "offset", "on", "option", "or", "order", "out", "outer", "over",
            "partition", "precision", "primary", "procedure", "purge", "range", "read", "real",
            "recursive", "references", "regexp", "rename", "repeat", "replace", "require", "return",
            "returning", "revoke", "right", "rlike", "row", "rows", "schema", "second", "select",
            "session_user", "set", "show", "similar", "smallint", "some", "sql", "start", "symmetric",
            "system_user", "table", "then", "to", "top", "trailing", "trigger", "true", "union",
            "unique", "unknown", "unlock", "update", "usage", "use", "user", "using", "values",
            "varchar", "when", "where", "while", "window", "with", "write", "xor", "year");

    private Identifiers() {
    }

    /**
     * Returns the name if it is a plain SQL identifier that is not a reserved word.
     *
     * @param knob  the configuration knob, for the message (e.g. "table")
     * @param value the name
     * @return the name, unchanged
     * @throws IllegalArgumentException naming the knob and the value otherwise
     */
    static String require(String knob, String value) {
        if (value == null) {
            throw new IllegalArgumentException(knob + " name must not be null");
        }
        if (!PLAIN.matcher(value).matches()) {
            throw new IllegalArgumentException(knob + " name '" + value
                    + "' is not a plain SQL identifier: use letters, digits and '_', starting with a letter or '_'");
        }
        if (value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(knob + " name '" + value + "' is " + value.length()
                    + " characters long; the limit is " + MAX_LENGTH);
        }
        if (RESERVED.contains(value.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException(knob + " name '" + value
                    + "' is a reserved SQL word; names are used unquoted, choose another");
        }
        return value;
    }
}

package io.zkfence.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

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
     * Reserved words of PostgreSQL, MariaDB and H2 (and common SQL:2016 ones), from
     * {@code reserved-words.txt}. Used unquoted they would be syntax errors, so they are refused
     * up front with a message instead of a confusing error from the database later.
     */
    private static final Set<String> RESERVED = load("reserved-words.txt");

    private Identifiers() {}

    private static Set<String> load(String resource) {
        try (InputStream in = Identifiers.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing class path resource io/zkfence/jdbc/" + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .map(String::strip)
                    .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                    .collect(Collectors.toUnmodifiableSet());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read class path resource io/zkfence/jdbc/" + resource, e);
        }
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
            throw new IllegalArgumentException(
                    knob + " name '" + value + "' is a reserved SQL word; names are used unquoted, choose another");
        }
        return value;
    }
}

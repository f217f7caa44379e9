package io.zkfence.jdbc;

import java.util.Locale;

/** Checks of the per-call arguments, made before anything is sent to the database. */
final class Arguments {

    /**
     * Longest resource key in UTF-16 code units ({@link String#length()}), matching the
     * {@code VARCHAR(255)} key column of the shipped DDL: the engines count code points, which
     * are never more than code units, so every accepted key fits on every engine.
     */
    static final int MAX_KEY_LENGTH = 255;

    private Arguments() {}

    static String requireKey(String key) {
        if (key == null) {
            throw new IllegalArgumentException("resource key must not be null");
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException("resource key must not be blank, got '" + key + "'");
        }
        if (key.length() > MAX_KEY_LENGTH) {
            // Refused rather than cut: two long keys sharing a prefix must never share a fence.
            throw new IllegalArgumentException("resource key '" + key.substring(0, 40) + "...' is " + key.length()
                    + " characters long; the limit is " + MAX_KEY_LENGTH);
        }
        // Refused because an engine would not keep them byte for byte, and two keys would then
        // share one fence row: PostgreSQL and MariaDB replace an unpaired surrogate by '?' (or
        // another character) on the way in, and PostgreSQL refuses NUL in text outright.
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '\0') {
                throw new IllegalArgumentException("resource key '" + printable(key)
                        + "' contains a NUL character (at index " + i + "); keys must not contain U+0000");
            }
            if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("resource key '" + printable(key)
                        + "' is not well-formed Unicode: unpaired "
                        + "surrogate U+" + Integer.toHexString(c).toUpperCase(Locale.ROOT) + " at index " + i
                        + "; keys must be well-formed UTF-16");
            }
        }
        return key;
    }

    /** The key with NUL and surrogate code units escaped, so that the message itself is readable. */
    private static String printable(String key) {
        StringBuilder b = new StringBuilder();
        String shown = key.length() > 60 ? key.substring(0, 60) : key;
        for (char c : shown.toCharArray()) {
            if (c == '\0' || Character.isSurrogate(c)) {
                b.append(String.format("\\u%04X", (int) c));
            } else {
                b.append(c);
            }
        }
        return key.length() > 60 ? b + "..." : b.toString();
    }

    static long requireToken(String key, long token) {
        if (token < 1) {
            throw new IllegalArgumentException(
                    "fencing token for resource '" + key + "' must be positive (1 or more), got " + token);
        }
        return token;
    }
}

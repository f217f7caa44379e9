package io.zkfence.jdbc;

/** Checks of the per-call arguments, made before anything is sent to the database. */
final class Arguments {

    /** Longest resource key, matching the {@code VARCHAR(255)} key column of the shipped DDL. */
    static final int MAX_KEY_LENGTH = 255;

    private Arguments() {
    }

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
        return key;
    }

    static long requireToken(String key, long token) {
        if (token < 1) {
            throw new IllegalArgumentException("fencing token for resource '" + key + "' must be positive (1 or more), got "
                    + token);
        }
        return token;
    }
}

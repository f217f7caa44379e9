package io.zkfence.redis;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The key rules, for data keys and fence names alike, checked before anything is sent: a key the
 * fence accepts is one exact string of bytes on the server.
 * <ul>
 * <li>1 to {@value #MAX_UTF8_BYTES} bytes in UTF-8;</li>
 * <li>well-formed Unicode: an unpaired UTF-16 surrogate would be sent as {@code ?}, so two
 *     different keys would be one;</li>
 * <li>no NUL (U+0000), which Redis would keep but which the tools around it (redis-cli, logs,
 *     many clients' string APIs) truncate.</li>
 * </ul>
 */
final class Keys {

    static final int MAX_UTF8_BYTES = 1024;

    private Keys() {}

    static void check(String what, String key, String operation) {
        if (key == null) {
            throw new IllegalArgumentException(what + " must not be null (" + operation + "); nothing was sent");
        }
        if (key.isEmpty()) {
            throw refused(what, "must be 1 to " + MAX_UTF8_BYTES + " bytes in UTF-8 but is empty", key, operation);
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '\0') {
                throw refused(what, "must not contain NUL (U+0000) (at index " + i + ")", key, operation);
            }
            if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw refused(
                        what,
                        "must be well-formed Unicode but has an unpaired surrogate U+"
                                + Integer.toHexString(c).toUpperCase(Locale.ROOT) + " at index " + i,
                        key,
                        operation);
            }
        }
        int bytes = key.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_UTF8_BYTES) {
            throw refused(what, "must be 1 to " + MAX_UTF8_BYTES + " bytes in UTF-8 but has " + bytes, key, operation);
        }
    }

    static void checkToken(long token, String fence, String operation) {
        if (token < 1) {
            throw new IllegalArgumentException("token must be >= 1 but was " + token + " (" + operation + " on fence '"
                    + shown(fence) + "'); nothing was sent");
        }
    }

    /** The key for a message: at most 80 characters, NUL visible. */
    static String shown(String key) {
        String s = key.length() > 80 ? key.substring(0, 80) + "..." : key;
        return s.replace("\0", "\\0");
    }

    private static IllegalArgumentException refused(String what, String rule, String key, String operation) {
        return new IllegalArgumentException(
                what + " " + rule + " (" + what + " '" + shown(key) + "', " + operation + "); nothing was sent");
    }
}

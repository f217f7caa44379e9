package io.zkfence.s3;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The key rules, checked before any request: a key the fence accepts is kept byte-for-byte by
 * S3 and maps to exactly one object, so to exactly one fence.
 * <ul>
 * <li>1 to 1024 bytes in UTF-8 (S3's bound is on the encoded bytes, not on characters);</li>
 * <li>well-formed Unicode: no unpaired UTF-16 surrogate, which UTF-8 encoding would replace with
 *     {@code ?}, so two different keys would share one object;</li>
 * <li>no NUL (U+0000), which stores and proxies truncate or refuse.</li>
 * </ul>
 */
final class ObjectKeys {

    static final int MAX_UTF8_BYTES = 1024;

    private ObjectKeys() {}

    static void check(String key, String operation, String bucket) {
        if (key.isEmpty()) {
            throw refused("must be 1 to " + MAX_UTF8_BYTES + " bytes in UTF-8 but is empty", key, operation, bucket);
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '\0') {
                throw refused("must not contain NUL (U+0000) (at index " + i + ")", key, operation, bucket);
            }
            if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw refused(
                        "must be well-formed Unicode but has an unpaired surrogate U+"
                                + Integer.toHexString(c).toUpperCase(Locale.ROOT) + " at index " + i,
                        key,
                        operation,
                        bucket);
            }
        }
        int bytes = key.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_UTF8_BYTES) {
            throw refused(
                    "must be 1 to " + MAX_UTF8_BYTES + " bytes in UTF-8 but has " + bytes, key, operation, bucket);
        }
    }

    private static IllegalArgumentException refused(String rule, String key, String operation, String bucket) {
        String shown = key.length() > 80 ? key.substring(0, 80) + "..." : key;
        return new IllegalArgumentException("key " + rule + " (key '" + shown.replace("\0", "\\0") + "', " + operation
                + " in bucket '" + bucket + "'); nothing was sent");
    }
}

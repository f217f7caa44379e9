package io.zkfence.server;

import java.nio.charset.StandardCharsets;

/**
 * A lock key as it appears in the URL, checked and mapped reversibly to one znode name: letters,
 * digits and {@code - _ . : ~ @ + = ,} stay as they are, every other UTF-8 byte is
 * percent-encoded (as lock-core maps lock names, so a key reads the same in zkCli).
 */
final class LockKey {

    static final int MAX_BYTES = 256;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private LockKey() {}

    /**
     * The znode name for {@code key}.
     *
     * @throws LockServiceException 400 if the key is empty, too long, not well-formed text or has
     *                              control characters
     */
    static String znode(String key) {
        if (key == null || key.isEmpty()) {
            throw LockServiceException.badRequest("lockKey must not be empty");
        }
        for (int i = 0; i < key.length(); ) {
            int cp = key.codePointAt(i);
            if (Character.isISOControl(cp)) {
                throw LockServiceException.badRequest("lockKey must not contain control characters (U+"
                        + String.format("%04X", cp) + " at index " + i + ")");
            }
            if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) {
                throw LockServiceException.badRequest("lockKey is not well-formed text (unpaired surrogate at index "
                        + i + ")");
            }
            i += Character.charCount(cp);
        }
        byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > MAX_BYTES) {
            throw LockServiceException.badRequest("lockKey must be at most " + MAX_BYTES + " bytes in UTF-8, was "
                    + utf8.length);
        }
        StringBuilder out = new StringBuilder(utf8.length + 8);
        for (int i = 0; i < utf8.length; i++) {
            int b = utf8[i] & 0xFF;
            boolean kept = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
                    || "-_.:~@+=,".indexOf(b) >= 0;
            if (kept && !(i == 0 && b == '.')) {
                out.append((char) b);
            } else {
                out.append('%').append(HEX[b >> 4]).append(HEX[b & 0xF]);
            }
        }
        return out.toString();
    }
}

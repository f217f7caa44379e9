package io.zkfence.lock;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Maps application lock names to znode paths and back.
 *
 * <p>A name becomes one path element under the configured root. Letters, digits and
 * {@code - _ . : ~ @ + = ,} are kept as they are, so names stay readable in zkCli; every other
 * character is percent-encoded as its UTF-8 bytes ({@code %2F} for {@code /}), which makes the
 * mapping reversible and keeps ZooKeeper's path rules (no {@code /}, no relative {@code .} or
 * {@code ..} elements, no characters ZooKeeper refuses) out of the caller's way.
 */
final class LockPaths {

    /** Longest accepted name, in UTF-8 bytes. Every queue request and watch carries the full path. */
    static final int MAX_NAME_BYTES = 256;

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private LockPaths() {}

    /**
     * Checks {@code name} against the naming rules.
     *
     * @throws IllegalArgumentException naming the rule that the name breaks
     */
    static void validateName(String name) {
        if (name == null) {
            throw new IllegalArgumentException("lock name must not be null");
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("lock name must not be empty");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be blank: \"" + name + "\"");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(String.format(
                        "lock name must not contain control characters: U+%04X at index %d in \"%s\"",
                        (int) c, i, printable(name)));
            }
            if (Character.isHighSurrogate(c)
                            && (i + 1 >= name.length() || !Character.isLowSurrogate(name.charAt(i + 1)))
                    || Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(name.charAt(i - 1)))) {
                throw new IllegalArgumentException("lock name must be valid UTF-16: unpaired surrogate at index " + i);
            }
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("lock name must be at most " + MAX_NAME_BYTES + " bytes in UTF-8, was "
                    + bytes + ": \"" + name.substring(0, 40) + "...\"");
        }
    }

    /** The path element for a valid name (see {@link #validateName}). */
    static String encode(String name) {
        validateName(name);
        StringBuilder out = new StringBuilder(name.length() + 8);
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < utf8.length; i++) {
            int b = utf8[i] & 0xFF;
            // A leading '.' is escaped so that "." and ".." never become relative path elements.
            if (isKept(b) && !(i == 0 && b == '.')) {
                out.append((char) b);
            } else {
                out.append('%').append(HEX[b >> 4]).append(HEX[b & 0xF]);
            }
        }
        return out.toString();
    }

    /** Inverse of {@link #encode}. */
    static String decode(String element) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(element.length());
        for (int i = 0; i < element.length(); i++) {
            char c = element.charAt(i);
            if (c == '%') {
                if (i + 2 >= element.length()) {
                    throw new IllegalArgumentException("not an encoded lock name: " + element);
                }
                bytes.write(Integer.parseInt(element, i + 1, i + 3, 16));
                i += 2;
            } else {
                bytes.write(c);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** The lock's znode: {@code root + "/" + encode(name)}. */
    static String lockPath(String root, String name) {
        return ("/".equals(root) ? "" : root) + "/" + encode(name);
    }

    private static boolean isKept(int b) {
        return (b >= 'a' && b <= 'z')
                || (b >= 'A' && b <= 'Z')
                || (b >= '0' && b <= '9')
                || "-_.:~@+=,".indexOf(b) >= 0;
    }

    private static String printable(String name) {
        StringBuilder sb = new StringBuilder();
        name.codePoints().forEach(cp -> {
            if (Character.isISOControl(cp)) {
                sb.append(String.format("\\u%04X", cp));
            } else {
                sb.appendCodePoint(cp);
            }
        });
        return sb.toString();
    }
}

package io.zkfence.server;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * A lock key as it appears in the URL: {@code <namespace>:<name>}, the classic
 * {@code lock:{namespace}:{lock_key}} scheme without its constant prefix. A key without a colon
 * is in the namespace {@value #DEFAULT_NAMESPACE}. API keys are granted namespaces, and a
 * namespace is one znode under the service's root, so listing a namespace is one read.
 *
 * <p>Each part maps reversibly to one znode name: letters, digits and {@code - _ . : ~ @ + = ,}
 * stay as they are, every other UTF-8 byte is percent-encoded (as lock-core maps lock names, so a
 * key reads the same in zkCli).
 *
 * @param namespace the part before the first colon
 * @param name      the rest
 */
record LockKey(String namespace, String name) {

    static final String DEFAULT_NAMESPACE = "default";
    static final int MAX_BYTES = 256;
    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /**
     * Parses and checks a key from a request.
     *
     * @throws LockServiceException 400 if the key is empty, too long, not well-formed text, has
     *                              control characters, or its namespace is not a valid namespace
     */
    static LockKey parse(String key) {
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
                throw LockServiceException.badRequest(
                        "lockKey is not well-formed text (unpaired surrogate at index " + i + ")");
            }
            i += Character.charCount(cp);
        }
        int utf8 = key.getBytes(StandardCharsets.UTF_8).length;
        if (utf8 > MAX_BYTES) {
            throw LockServiceException.badRequest(
                    "lockKey must be at most " + MAX_BYTES + " bytes in UTF-8, was " + utf8);
        }
        int colon = key.indexOf(':');
        if (key.substring(colon + 1).isBlank()) {
            throw LockServiceException.badRequest("lockKey '" + key + "' has a name of white space only");
        }
        if (colon < 0) {
            return new LockKey(DEFAULT_NAMESPACE, key);
        }
        String namespace =
                checkNamespace(key.substring(0, colon), "lockKey's namespace (the part before the first ':')");
        if (colon == key.length() - 1) {
            throw LockServiceException.badRequest("lockKey '" + key + "' has a namespace but no name after the ':'");
        }
        return new LockKey(namespace, key.substring(colon + 1));
    }

    /**
     * Checks a namespace given on its own ({@code GET /v1/locks?namespace=}).
     *
     * @param what how the error names the value
     */
    static String checkNamespace(String namespace, String what) {
        if (namespace == null || !NAMESPACE.matcher(namespace).matches()) {
            throw LockServiceException.badRequest(what + " must be 1 to 64 letters, digits, '.', '_' or '-', starting"
                    + " with a letter or digit; was '" + namespace + "'");
        }
        return namespace;
    }

    /** The key as clients write it. */
    String key() {
        return DEFAULT_NAMESPACE.equals(namespace) && name.indexOf(':') < 0 ? name : namespace + ":" + name;
    }

    /** The lock's znode name inside its namespace's znode. */
    String znode() {
        return segment(name);
    }

    /** The key that a lock's znode name in {@code namespace} stands for (the reverse of {@link #znode()}). */
    static LockKey fromZnode(String namespace, String znode) {
        byte[] out = new byte[znode.length()];
        int n = 0;
        for (int i = 0; i < znode.length(); i++) {
            char c = znode.charAt(i);
            if (c == '%' && i + 2 < znode.length()) {
                out[n++] = (byte) Integer.parseInt(znode.substring(i + 1, i + 3), 16);
                i += 2;
            } else {
                out[n++] = (byte) c;
            }
        }
        return new LockKey(namespace, new String(out, 0, n, StandardCharsets.UTF_8));
    }

    private static String segment(String text) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(utf8.length + 8);
        for (int i = 0; i < utf8.length; i++) {
            int b = utf8[i] & 0xFF;
            boolean kept = (b >= 'a' && b <= 'z')
                    || (b >= 'A' && b <= 'Z')
                    || (b >= '0' && b <= '9')
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

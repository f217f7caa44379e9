package io.zkfence.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One Lua script as the server knows it: its source and the SHA1 {@code EVALSHA} names it by.
 *
 * @param source the Lua source
 * @param sha1 its SHA1 in lower-case hex
 */
record Script(String source, String sha1) {

    static Script of(String source) {
        return new Script(source, sha1(source));
    }

    private static String sha1(String source) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-1", e);
        }
    }
}

package io.zkfence.redis;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster's key-to-slot mapping, computed here so that a write whose keys would land in
 * different slots is refused before it is sent: CRC16 (XMODEM) of the key's UTF-8 bytes modulo
 * 16384, or of its hash tag, the bytes between the first {@code {} and the first {@code }} after
 * it when there is at least one.
 */
final class Slots {

    static final int COUNT = 16384;

    private static final int[] TABLE = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int crc = i << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            TABLE[i] = crc & 0xFFFF;
        }
    }

    private Slots() {}

    /** The slot of {@code key}. */
    static int of(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int start = 0;
        int end = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                start = open + 1;
                end = close;
            }
        }
        return crc16(bytes, start, end) % COUNT;
    }

    /** Whether {@code key} has a hash tag (a non-empty {@code {...}} section Redis hashes instead). */
    static boolean hasHashTag(String key) {
        int open = key.indexOf('{');
        if (open < 0) {
            return false;
        }
        int close = key.indexOf('}', open + 1);
        return close > open + 1;
    }

    static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ bytes[i]) & 0xFF]) & 0xFFFF;
        }
        return crc;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }
}

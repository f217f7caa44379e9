package io.zkfence.lock;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

/**
 * What a queue node stores: the owner id and when the acquire was requested.
 *
 * <p>Encoded as UTF-8 text {@code zkfence1|<epoch-millis>|<owner>} so that zkCli shows it
 * readably. The owner goes last, so it may contain {@code |}.
 *
 * @param ownerId     who asked for the lock (config {@code ownerId})
 * @param requestedAt when the acquire call enqueued, by the acquirer's clock
 */
record NodeData(String ownerId, Instant requestedAt) {

    private static final String MAGIC = "zkfence1";

    static byte[] encode(String ownerId, long requestedAtMillis) {
        return (MAGIC + "|" + requestedAtMillis + "|" + ownerId).getBytes(StandardCharsets.UTF_8);
    }

    /** Decodes data written by {@link #encode}; anything else gives empty. */
    static Optional<NodeData> decode(byte[] data) {
        if (data == null) {
            return Optional.empty();
        }
        String text = new String(data, StandardCharsets.UTF_8);
        String[] parts = text.split("\\|", 3);
        if (parts.length != 3 || !MAGIC.equals(parts[0])) {
            return Optional.empty();
        }
        try {
            return Optional.of(new NodeData(parts[2], Instant.ofEpochMilli(Long.parseLong(parts[1]))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}

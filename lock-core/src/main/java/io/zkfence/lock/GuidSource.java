package io.zkfence.lock;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The GUIDs that name one client's queue nodes: 64 random bits drawn once per client, then a
 * counter, as 22 URL-safe base64 characters.
 *
 * <p>A GUID must only be unique among the queue nodes of one lock, so that a client can find the
 * node its create made when the answer was lost. The counter makes a client's GUIDs unique; the
 * random half makes two clients' GUIDs collide with probability 2^-64. Drawing from
 * {@code SecureRandom} once instead of per acquire keeps it off the acquire path.
 */
final class GuidSource {

    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();

    private final long prefix;
    private final AtomicLong counter = new AtomicLong();

    GuidSource() {
        this.prefix = new SecureRandom().nextLong();
    }

    String next() {
        byte[] bits = ByteBuffer.allocate(16).putLong(prefix).putLong(counter.incrementAndGet()).array();
        return BASE64.encodeToString(bits);
    }
}

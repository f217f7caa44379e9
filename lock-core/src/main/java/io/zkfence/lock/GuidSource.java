package io.zkfence.lock;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The GUIDs that name one client's queue nodes: 64 random bits drawn once per client, then a
 * 40-bit counter, as 18 URL-safe base64 characters, then {@code "lock"}: 22 characters.
 *
 * <p>The {@code "lock"} ending makes the node name end in {@code lock-<sequence>}, the part
 * Curator's {@code InterProcessMutex} orders its queue by, so Curator pods on the same lock znode
 * see zkfence's entries in their true place (see {@link QueueNode}).
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
        this(new SecureRandom().nextLong());
    }

    /** GUIDs with the given random half: the same GUIDs in every run (tests that replay a schedule). */
    GuidSource(long prefix) {
        this.prefix = prefix;
    }

    String next() {
        long n = counter.incrementAndGet();
        // 13 bytes encode to 18 characters; a client would need 2^40 acquires to wrap the counter.
        ByteBuffer bits = ByteBuffer.allocate(13).putLong(prefix);
        for (int shift = 32; shift >= 0; shift -= 8) {
            bits.put((byte) (n >>> shift));
        }
        return BASE64.encodeToString(bits.array()) + QueueNode.CURATOR_LOCK_NAME.substring(0, 4);
    }
}

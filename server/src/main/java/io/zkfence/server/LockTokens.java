package io.zkfence.server;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Issues and checks lockTokens: {@code <sequence>.<id>.<request>.<mac>}, where the first three
 * parts name the entry (so renew and release reach it without listing the queue) and the MAC,
 * an HMAC-SHA256 under the service's key over the lock's path, the entry's name and the owner,
 * proves that this service issued the token for that lock, entry and owner. A token that fails
 * the check names no lease, live or ended: the caller is not the owner (403
 * {@code NOT_LOCK_OWNER}). A token that passes and whose entry is gone names a lease that ended.
 *
 * <p>The key is 32 random bytes kept in ZooKeeper ({@code <root>/_key}, created by the first
 * replica, with the service's ACL), so every replica checks every replica's tokens. Entry names
 * therefore hold no credential and may appear in logs and errors; the token never does.
 */
final class LockTokens {

    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final int MAC_BYTES = 16;

    /**
     * Initialised with the key once; each MAC is computed on a clone of it. Looking the algorithm
     * up and initialising it per token cost more than the MAC itself, on every acquire, renew and
     * release.
     */
    private final Mac keyed;

    LockTokens(byte[] key) {
        if (key.length < 32) {
            throw new IllegalArgumentException("the service key must be at least 32 bytes, was " + key.length);
        }
        try {
            this.keyed = Mac.getInstance("HmacSHA256");
            keyed.init(new SecretKeySpec(key.clone(), "HmacSHA256"));
            keyed.clone(); // fail here, at start, if this JDK's HmacSHA256 cannot be cloned
        } catch (GeneralSecurityException | CloneNotSupportedException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK or cannot be cloned", e);
        }
    }

    /** The lockToken of {@code entry} on the lock at {@code lockPath}, for {@code ownerId}. */
    String issue(String lockPath, EntryName entry, String ownerId) {
        return entry.sequence() + "." + entry.id() + "." + entry.request() + "." + mac(lockPath, entry, ownerId);
    }

    /**
     * The entry {@code token} names, if this service issued it for that lock and owner.
     *
     * @return empty for a forged token, another lock's or another owner's
     */
    Optional<EntryName> check(String lockPath, String token, String ownerId) {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 4) {
            return Optional.empty();
        }
        EntryName entry;
        try {
            entry = EntryName.of(parts[1], parts[2], Integer.parseInt(parts[0]));
        } catch (RuntimeException malformed) {
            return Optional.empty();
        }
        if (entry.legacy() || parts[1].contains("-") || parts[2].contains("-")) {
            return Optional.empty();
        }
        byte[] expected = mac(lockPath, entry, ownerId).getBytes(StandardCharsets.US_ASCII);
        byte[] given = parts[3].getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, given) ? Optional.of(entry) : Optional.empty();
    }

    /**
     * True if {@code token} has the shape of a previous protocol's lockToken (32 hex digits, the
     * secret inside its entry's name): it is looked for in the queue, for leases granted before a
     * rolling upgrade. Any other token is checked as this protocol's.
     */
    static boolean legacy(String token) {
        return token.length() == 32 && token.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }

    private String mac(String lockPath, EntryName entry, String ownerId) {
        try {
            Mac mac = (Mac) keyed.clone();
            mac.update(lockPath.getBytes(StandardCharsets.UTF_8));
            mac.update((byte) 0);
            mac.update(entry.prefixAndSequence().getBytes(StandardCharsets.UTF_8));
            mac.update((byte) 0);
            byte[] full = mac.doFinal(ownerId.getBytes(StandardCharsets.UTF_8));
            byte[] cut = new byte[MAC_BYTES];
            System.arraycopy(full, 0, cut, 0, MAC_BYTES);
            return B64.encodeToString(cut);
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("HmacSHA256 cannot be cloned (checked at start)", e);
        }
    }
}

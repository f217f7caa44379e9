package io.zkfence.fencing.contract;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A fenced resource as {@link FencingContract} drives it, whatever stands behind it: a row
 * written in a fenced SQL transaction, an object written with a fenced conditional PUT. Each
 * adapter's test suite implements it in a few lines over the adapter's public API; the contract
 * never sees the adapter.
 *
 * <p>A key names one resource; a value is what a holder writes there (a row's column, an
 * object's bytes). Every write and delete presents a fencing token, as a lock holder would.
 */
public interface FencedResource extends AutoCloseable {

    /**
     * Writes {@code value} to {@code key} if no higher token has been accepted there, as one
     * fenced unit of work.
     *
     * @param midway run on the calling thread once the adapter has looked at the resource and
     *               before its write becomes visible to others (inside the transaction before the
     *               commit; before the conditional request that writes). The contract pauses a
     *               writer there to interleave another one deterministically
     * @throws io.zkfence.fencing.StaleTokenException if a higher token was accepted; nothing of
     *                                                this write may be visible afterwards
     */
    void write(String key, long token, String value, Runnable midway);

    /** {@link #write(String, long, String, Runnable)} without a pause. */
    default void write(String key, long token, String value) {
        write(key, token, value, () -> {});
    }

    /**
     * Removes the value at {@code key} if no higher token has been accepted there.
     *
     * @return whether a value was there and removed
     * @throws io.zkfence.fencing.StaleTokenException if a higher token was accepted; the value
     *                                                stays
     */
    boolean delete(String key, long token);

    /** The committed value at {@code key}, read as a bystander would (another connection or client). */
    Optional<String> read(String key);

    /** The highest token the resource has accepted for {@code key}, as the adapter reports it. */
    OptionalLong storedToken(String key);

    /** What {@link io.zkfence.fencing.StaleTokenException#resource()} names for {@code key}. */
    String resourceName(String key);

    /**
     * How many requests the adapter has sent to the store through this resource so far (HTTP
     * requests, Redis commands, connections taken from a pool), counted by the resource's own
     * client. The contract reads it around calls that must be refused before anything is sent.
     */
    long requestsSent();

    /**
     * The keys that hold a value under {@code prefix} (starting with it), as the store lists
     * them: the contract checks that a key is stored exactly as given, never another key a store
     * or a client library turned it into.
     */
    Set<String> keysUnder(String prefix);

    /**
     * The values of the accepted writes to {@code key}, in the order the store committed them,
     * when the resource records that history in the same unit of work as each write (a history
     * row in the same SQL transaction, a list append in the same Redis script); empty when the
     * store cannot (an object store keeps the last write only).
     */
    default Optional<List<String>> history(String key) {
        return Optional.empty();
    }

    /**
     * Whether the store applies concurrent conditional writes to one key as an atomic
     * compare-and-set. True for databases, Redis and the real object stores; an emulator that is
     * not (S3Mock, docs/fencing-s3.md) answers false and the contract's many-writer race is not run
     * against it (JUnit reports it skipped, with this reason).
     */
    default boolean atomicUnderConcurrentWrites() {
        return true;
    }

    /**
     * Whether some writer is now blocked waiting for another one (on a row lock, say). An adapter
     * whose writers never wait for each other keeps the default. The contract uses it to release a
     * paused writer once the other writer can go no further without it.
     */
    default boolean aWriterIsWaiting() {
        return false;
    }

    @Override
    default void close() {}
}

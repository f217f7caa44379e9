package io.zkfence.lock;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The live grants and in-flight acquisitions of one client: for re-entrancy (which thread holds
 * which lock) and so that connection events reach every lease and waiter.
 */
final class GrantRegistry {

    /**
     * (lock, thread). Written out rather than a record: the map calls equals and hashCode on the
     * acquire and release paths, and a record's generated ones are slower there.
     */
    private static final class Key {
        private final String lockPath;
        private final Thread owner;
        private final int hash;

        Key(String lockPath, Thread owner) {
            this.lockPath = lockPath;
            this.owner = owner;
            this.hash = 31 * System.identityHashCode(owner) + lockPath.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.owner == owner && k.lockPath.equals(lockPath);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private final ConcurrentHashMap<Key, Grant> grants = new ConcurrentHashMap<>();
    private final Set<Acquisition> acquisitions = ConcurrentHashMap.newKeySet();

    /** The live grant {@code thread} holds on {@code lockPath}, or null. */
    Grant heldBy(String lockPath, Thread thread) {
        return grants.get(new Key(lockPath, thread));
    }

    void add(Grant grant) {
        grants.put(new Key(grant.lockPath, grant.owner), grant);
    }

    void remove(Grant grant) {
        grants.remove(new Key(grant.lockPath, grant.owner), grant);
    }

    Collection<Grant> grants() {
        return List.copyOf(grants.values());
    }

    void add(Acquisition acquisition) {
        acquisitions.add(acquisition);
    }

    void remove(Acquisition acquisition) {
        acquisitions.remove(acquisition);
    }

    Collection<Acquisition> acquisitions() {
        return List.copyOf(acquisitions);
    }
}

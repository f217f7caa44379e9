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

    private record Key(String lockPath, Thread owner) {}

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

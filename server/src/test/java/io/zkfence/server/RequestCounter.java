package io.zkfence.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.KeeperException;

/** Counts a replica's ZooKeeper requests by kind ({@code multi}, {@code children}, {@code data}, ...), sending each. */
final class RequestCounter implements ZkWire.FaultInjector {

    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    @Override
    public KeeperException.Code inject(String kind, String path) {
        counts.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
        return null;
    }

    int count(String kind) {
        AtomicInteger n = counts.get(kind);
        return n == null ? 0 : n.get();
    }

    int total() {
        return counts.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    void reset() {
        counts.clear();
    }

    @Override
    public String toString() {
        return counts.toString();
    }
}

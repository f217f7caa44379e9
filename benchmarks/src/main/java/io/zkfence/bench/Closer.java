package io.zkfence.bench;

import java.util.ArrayDeque;
import java.util.Deque;

/** Closes what a workload opened, last opened first; the first failure wins, later ones are suppressed. */
final class Closer implements AutoCloseable {

    private final Deque<AutoCloseable> open = new ArrayDeque<>();

    <T extends AutoCloseable> T add(T resource) {
        open.push(resource);
        return resource;
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        while (!open.isEmpty()) {
            try {
                open.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("closing benchmark resources failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}

package io.zkfence.samples.demo;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Everything the demo must undo (pods, servers, temporary folders), undone in reverse order
 * exactly once: at the normal end, or from a shutdown hook when the demo is interrupted
 * (Ctrl-C, SIGTERM). A SIGKILL leaves no chance to clean up; the pods then exit when their
 * standard input closes, except one that is stopped at that moment.
 */
final class Cleanup implements AutoCloseable {

    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private final Thread hook = new Thread(this::close, "zkfence-demo-cleanup");
    private boolean closed;

    Cleanup() {
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Registers a resource; if cleanup already ran (interrupted), closes it at once. */
    <T extends AutoCloseable> T add(T resource) {
        boolean closeNow;
        synchronized (this) {
            closeNow = closed;
            if (!closeNow) {
                resources.push(resource);
            }
        }
        if (closeNow) {
            closeOne(resource);
        }
        return resource;
    }

    @Override
    public void close() {
        while (true) {
            AutoCloseable next;
            synchronized (this) {
                closed = true;
                next = resources.poll();
            }
            if (next == null) {
                break;
            }
            closeOne(next);
        }
        if (Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // The JVM is already shutting down: the hook is running or has run.
            }
        }
    }

    private static void closeOne(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            System.err.println("zkfence demo: cleaning up " + resource + " failed: " + e);
        }
    }
}

package io.zkfence.bench;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * At most a given number of asynchronous calls in flight; the others wait in order and start as
 * calls end. A driver that sent everything at once would measure its own queue in the servers'
 * latencies; one that blocked its timer thread would stop scheduling. Thread-safe.
 */
final class CallLimiter {

    private final int max;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Queue<Supplier<? extends CompletableFuture<?>>> waiting = new ConcurrentLinkedQueue<>();

    CallLimiter(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max calls in flight must be >= 1, was " + max);
        }
        this.max = max;
    }

    /** Starts {@code call} now if fewer than the maximum are in flight, else when one ends. */
    void submit(Supplier<? extends CompletableFuture<?>> call) {
        waiting.add(call);
        startWaiting();
    }

    int inFlight() {
        return inFlight.get();
    }

    int queued() {
        return waiting.size();
    }

    private void startWaiting() {
        while (true) {
            int n = inFlight.get();
            if (n >= max) {
                return; // an ending call starts the next
            }
            if (!inFlight.compareAndSet(n, n + 1)) {
                continue;
            }
            Supplier<? extends CompletableFuture<?>> next = waiting.poll();
            if (next == null) {
                inFlight.decrementAndGet();
                if (waiting.isEmpty()) {
                    return;
                }
                continue; // one arrived meanwhile
            }
            CompletableFuture<?> call;
            try {
                call = next.get();
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            }
            // Not on this thread when the call already ended: the next start must not recurse here.
            call.whenCompleteAsync((r, t) -> {
                inFlight.decrementAndGet();
                startWaiting();
            });
        }
    }
}

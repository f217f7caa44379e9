package io.zkfence.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CallLimiterTest {

    @Test
    void callsBeyondTheMaximumWaitAndStartInOrderAsCallsEnd() throws Exception {
        CallLimiter limiter = new CallLimiter(2);
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        List<Integer> started = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int n = i;
            CompletableFuture<Void> call = new CompletableFuture<>();
            calls.add(call);
            limiter.submit(() -> {
                synchronized (started) {
                    started.add(n);
                }
                return call;
            });
        }
        assertThat(started).containsExactly(0, 1);
        assertThat(limiter.inFlight()).isEqualTo(2);
        assertThat(limiter.queued()).isEqualTo(3);

        calls.get(1).complete(null);
        awaitStarted(started, 3);
        assertThat(started).containsExactly(0, 1, 2);
        calls.get(0).complete(null);
        calls.get(2).complete(null);
        awaitStarted(started, 5);
        assertThat(started).containsExactly(0, 1, 2, 3, 4);
        calls.get(3).complete(null);
        calls.get(4).complete(null);
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    }

    @Test
    void aCallThatThrowsFreesItsSlot() throws Exception {
        CallLimiter limiter = new CallLimiter(1);
        AtomicInteger ran = new AtomicInteger();
        limiter.submit(() -> {
            throw new IllegalStateException("the call could not be sent");
        });
        CompletableFuture<Void> next = new CompletableFuture<>();
        limiter.submit(() -> {
            ran.incrementAndGet();
            next.complete(null);
            return next;
        });
        next.get(10, TimeUnit.SECONDS);
        assertThat(ran).hasValue(1);
    }

    @Test
    void aMaximumBelowOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CallLimiter(0));
    }

    /** The next call starts on the common pool after an earlier one ends: wait for it, not for a time. */
    private static void awaitStarted(List<Integer> started, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            synchronized (started) {
                if (started.size() >= count) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + started + " started");
            }
            Thread.onSpinWait();
        }
    }
}

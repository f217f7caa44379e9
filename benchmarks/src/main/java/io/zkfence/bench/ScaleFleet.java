package io.zkfence.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.HdrHistogram.Recorder;

/**
 * What both fleets share: acquires ramped at a steady rate, renewals on a fixed-rate schedule from
 * each grant, at most {@link #MAX_IN_FLIGHT} calls in flight (the rest wait in order, and their
 * lateness is recorded), and the counts and histograms {@code STATS} reports.
 */
abstract class ScaleFleet implements AutoCloseable {

    static final int MAX_IN_FLIGHT = 512;

    /** What a renewal came to. */
    enum Outcome {
        OK,
        LOST,
        ERROR
    }

    /** One lease's renewal schedule. */
    static class Held {
        final AtomicLong renewals = new AtomicLong();
        /** True from its grant until it is lost or its holder stops renewing it. */
        final AtomicBoolean holding = new AtomicBoolean();

        volatile long nextDue;
        volatile ScheduledFuture<?> task;
    }

    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(ScaleDriver.daemon("timer"));
    private final CallLimiter limiter = new CallLimiter(MAX_IN_FLIGHT);
    final Recorder acquireLatency = new Recorder(3);
    final Recorder renewLatency = new Recorder(3);
    final Recorder lateness = new Recorder(3);
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong acquired = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong renewOk = new AtomicLong();
    private final AtomicLong renewLost = new AtomicLong();
    private final AtomicLong renewErrors = new AtomicLong();
    private final ConcurrentHashMap<String, AtomicLong> statuses = new ConcurrentHashMap<>();
    /** Renewals failed, by the phase they failed in ({@link #phase}) and their cause. */
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, AtomicLong>> renewErrorsBy =
            new ConcurrentHashMap<>();
    /** What the harness is doing now (a level's ramp, settling, window), as it last said. */
    private volatile String phase = "start";

    /** Acquire {@code i} of a ramp; completes true when granted. */
    @FunctionalInterface
    interface Acquire {
        CompletableFuture<Boolean> start(int i);
    }

    /** Starts {@code count} acquires evenly over {@code rampMs}; answers once all have answered. */
    String ramp(int count, long rampMs, Acquire acquire) {
        long t0 = System.nanoTime();
        CountDownLatch done = new CountDownLatch(count);
        AtomicLong ok = new AtomicLong();
        AtomicLong no = new AtomicLong();
        long step = count == 0 ? 0 : TimeUnit.MILLISECONDS.toNanos(rampMs) / count;
        for (int i = 0; i < count; i++) {
            int index = i;
            timer.schedule(
                    () -> limiter.submit(() -> {
                        CompletableFuture<Boolean> call;
                        try {
                            call = acquire.start(index);
                        } catch (RuntimeException e) {
                            call = CompletableFuture.failedFuture(e);
                        }
                        return call.whenComplete((granted, failure) -> {
                            if (failure != null) {
                                error(failure);
                            }
                            if (Boolean.TRUE.equals(granted)) {
                                ok.incrementAndGet();
                                acquired.incrementAndGet();
                                held.incrementAndGet();
                            } else {
                                no.incrementAndGet();
                                refused.incrementAndGet();
                            }
                            done.countDown();
                        });
                    }),
                    step * i,
                    TimeUnit.NANOSECONDS);
        }
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while acquiring", e);
        }
        return "HELD " + ok.get() + " " + no.get() + " " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    /** {@code call} started by the timer {@code delayNanos} from now; the future of its answer. */
    <T> CompletableFuture<T> later(long delayNanos, Supplier<CompletableFuture<T>> call) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        timer.schedule(
                () -> {
                    try {
                        call.get().whenComplete((v, t) -> {
                            if (t != null) {
                                answer.completeExceptionally(t);
                            } else {
                                answer.complete(v);
                            }
                        });
                    } catch (RuntimeException e) {
                        answer.completeExceptionally(e);
                    }
                },
                delayNanos,
                TimeUnit.NANOSECONDS);
        return answer;
    }

    /** Renews {@code lease} every {@code renewMs} from now (its grant) until it is lost or stopped. */
    void keepRenewing(Held lease, long renewMs, Supplier<CompletableFuture<Outcome>> renew) {
        long period = TimeUnit.MILLISECONDS.toNanos(renewMs);
        lease.holding.set(true);
        lease.nextDue = System.nanoTime() + period;
        lease.task = timer.scheduleAtFixedRate(
                () -> {
                    long due = lease.nextDue;
                    lease.nextDue = due + period;
                    limiter.submit(() -> {
                        if (!lease.holding.get()) {
                            // Stopped while this renewal waited for a slot: its holder released it.
                            return CompletableFuture.completedFuture(null);
                        }
                        long sent = System.nanoTime();
                        lateness.recordValue(Math.max(0, sent - due));
                        CompletableFuture<Outcome> call;
                        try {
                            call = renew.get();
                        } catch (RuntimeException e) {
                            call = CompletableFuture.failedFuture(e);
                        }
                        return call.whenComplete((outcome, failure) -> {
                            if (failure != null) {
                                error(failure);
                                renewFailed(causeOf(failure));
                                return;
                            }
                            switch (outcome) {
                                case OK -> {
                                    renewLatency.recordValue(System.nanoTime() - sent);
                                    renewOk.incrementAndGet();
                                }
                                case LOST -> {
                                    if (end(lease)) { // not a renewal that crossed its own release
                                        renewLost.incrementAndGet();
                                    }
                                }
                                case ERROR -> {
                                    // counted with its cause by the renewal itself (renewFailed)
                                }
                            }
                        });
                    });
                },
                period,
                period,
                TimeUnit.NANOSECONDS);
    }

    /**
     * Renews a group of leases together (one owner's, in batch calls) every {@code renewMs}, the
     * first time {@code firstMs} from now, until the fleet closes: {@code renewAll} sends the
     * group's calls and completes with how many leases they renewed (it reports each lease refused
     * through {@link #lost}). Its latency is the group's (all its calls answered), its lateness
     * the group's.
     */
    void keepRenewingGroup(long renewMs, long firstMs, Supplier<CompletableFuture<Long>> renewAll) {
        long period = TimeUnit.MILLISECONDS.toNanos(renewMs);
        AtomicLong nextDue = new AtomicLong(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(firstMs));
        timer.scheduleAtFixedRate(
                () -> {
                    long due = nextDue.getAndAdd(period);
                    limiter.submit(() -> {
                        long sent = System.nanoTime();
                        lateness.recordValue(Math.max(0, sent - due));
                        CompletableFuture<Long> call;
                        try {
                            call = renewAll.get();
                        } catch (RuntimeException e) {
                            call = CompletableFuture.failedFuture(e);
                        }
                        return call.whenComplete((renewed, failure) -> {
                            if (failure != null) {
                                error(failure);
                                renewFailed(causeOf(failure));
                                return;
                            }
                            if (renewed > 0) {
                                renewLatency.recordValue(System.nanoTime() - sent);
                                renewOk.addAndGet(renewed);
                            }
                        });
                    });
                },
                TimeUnit.MILLISECONDS.toNanos(firstMs),
                period,
                TimeUnit.NANOSECONDS);
    }

    /** {@code lease} was granted and is renewed by its group ({@link #keepRenewingGroup}). */
    void holdInGroup(Held lease) {
        lease.holding.set(true);
    }

    /** A renewal of {@code lease} was refused: it had ended. */
    void lost(Held lease) {
        if (end(lease)) {
            renewLost.incrementAndGet();
        }
    }

    /**
     * A renewal of one lease failed otherwise (a 5xx for its batch, an error in its result, a
     * transport failure): counted under the current {@link #phase} and {@code cause}.
     */
    void renewFailed(String cause) {
        renewErrors.incrementAndGet();
        renewErrorsBy
                .computeIfAbsent(phase, p -> new ConcurrentHashMap<>())
                .computeIfAbsent(cause, c -> new AtomicLong())
                .incrementAndGet();
    }

    /** From now on, renewals that fail are counted under {@code name}. */
    void phase(String name) {
        phase = name;
    }

    /** A failure's cause as a renewal error's: the exception's class (its cause's if it only wraps one). */
    static String causeOf(Throwable t) {
        Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        return cause.getClass().getSimpleName();
    }

    /** Stops renewing {@code lease} (it is about to be released, or left to expire). */
    void stopRenewing(Held lease) {
        end(lease);
    }

    /** Ends {@code lease}'s renewals; true if it was still held. */
    private boolean end(Held lease) {
        if (!lease.holding.compareAndSet(true, false)) {
            return false;
        }
        held.decrementAndGet();
        ScheduledFuture<?> task = lease.task;
        if (task != null) {
            task.cancel(false);
        }
        return true;
    }

    void refused(int status) {
        status(status);
    }

    void status(int status) {
        statuses.computeIfAbsent(String.valueOf(status), s -> new AtomicLong()).incrementAndGet();
    }

    /** A failure named by a code (a lease's error in a batch's results). */
    void statusOf(String code) {
        statuses.computeIfAbsent(code, s -> new AtomicLong()).incrementAndGet();
    }

    void error(Throwable t) {
        statuses.computeIfAbsent(causeOf(t), s -> new AtomicLong()).incrementAndGet();
    }

    /** Cumulative counts, the process's CPU time, and the histograms since the last call (reset). */
    String stats() {
        ObjectNode stats = ScaleDriver.JSON.createObjectNode();
        stats.put("held", held.get());
        stats.put("acquired", acquired.get());
        stats.put("refused", refused.get());
        stats.put("renewOk", renewOk.get());
        stats.put("renewLost", renewLost.get());
        stats.put("renewErrors", renewErrors.get());
        stats.put("inFlight", limiter.inFlight());
        stats.put("queued", limiter.queued());
        stats.put("cpuNanos", processCpuNanos());
        ObjectNode byStatus = stats.putObject("statuses");
        statuses.forEach((s, n) -> byStatus.put(s, n.get()));
        ObjectNode errorsBy = stats.putObject("renewErrorsBy");
        renewErrorsBy.forEach((p, causes) -> {
            ObjectNode inPhase = errorsBy.putObject(p);
            causes.forEach((c, n) -> inPhase.put(c, n.get()));
        });
        extraStats(stats);
        stats.put("renewLatency", Histograms.encode(renewLatency.getIntervalHistogram()));
        stats.put("lateness", Histograms.encode(lateness.getIntervalHistogram()));
        stats.put("acquireLatency", Histograms.encode(acquireLatency.getIntervalHistogram()));
        return stats.toString();
    }

    /** What a fleet adds to its {@code STATS} line. */
    void extraStats(ObjectNode stats) {}

    @Override
    public void close() {
        timer.shutdownNow();
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}

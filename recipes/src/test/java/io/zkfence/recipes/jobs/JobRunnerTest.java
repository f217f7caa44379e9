package io.zkfence.recipes.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.AcquireInterruptedException;
import io.zkfence.lock.LeaseLostException;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import io.zkfence.recipes.testing.ZooKeeperTestBase;
import io.zkfence.testkit.FreezableProxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class JobRunnerTest extends ZooKeeperTestBase {

    @Test
    void holdAtLeastKeepsAFastRunsOccurrenceTakenWithoutKeepingTheCallersThread() {
        LockClient a = client("a");
        LockClient b = client("b");
        JobRunner first = closeLater(JobRunner.create(a));
        JobRunner second = closeLater(JobRunner.create(b));
        Duration hold = Duration.ofSeconds(5);
        RunOnceJob job = RunOnceJob.builder("fast").holdAtLeast(hold).build();
        AtomicReference<JobRun> ran = new AtomicReference<>();

        long started = System.nanoTime();
        assertThat(first.runOnce(job, "occurrence-1", ran::set)).isEqualTo(JobOutcome.RAN);
        // runOnce returned as soon as the task did; the hold goes on in the background.
        JobRun run = ran.get();
        assertThat(run.lease().state()).isEqualTo(LeaseState.HELD);
        AtomicInteger secondRuns = new AtomicInteger();
        assertThat(second.runOnce(job, "occurrence-1", r -> secondRuns.incrementAndGet()))
                .isEqualTo(JobOutcome.TAKEN);
        assertThat(secondRuns).hasValue(0);
        assertThat(b.inspect(job.lockName("occurrence-1")).holder())
                .get()
                .satisfies(h -> assertThat(h.token()).isEqualTo(run.token()));

        LeaseState end = run.lease().ended().toCompletableFuture().join();
        long heldFor = System.nanoTime() - started;
        assertThat(end).isEqualTo(LeaseState.RELEASED);
        assertThat(Duration.ofNanos(heldFor)).isGreaterThanOrEqualTo(hold);
        eventually()
                .until(() -> b.inspect(job.lockName("occurrence-1")).holder().isEmpty());
    }

    @Test
    void withoutAHoldTheOccurrenceIsReleasedWhenTheTaskReturns() {
        JobRunner runner = closeLater(JobRunner.create(client("a")));
        RunOnceJob job = RunOnceJob.builder("no-hold").build();
        AtomicReference<JobRun> ran = new AtomicReference<>();
        assertThat(runner.runOnce(job, "x", ran::set)).isEqualTo(JobOutcome.RAN);
        assertThat(ran.get().lease().state()).isEqualTo(LeaseState.RELEASED);
    }

    @Test
    void maxHoldEndsTheLeaseOfAHungRunAndTellsTheTask() throws Exception {
        JobRunner runner = closeLater(JobRunner.create(client("a")));
        LockClient observer = client("observer");
        RunOnceJob job =
                RunOnceJob.builder("hangs").maxHold(Duration.ofMillis(800)).build();
        CountDownLatch unblock = new CountDownLatch(1);
        AtomicReference<JobRun> ran = new AtomicReference<>();
        List<Throwable> seenByTask = new CopyOnWriteArrayList<>();
        CompletableFuture<JobOutcome> outcome = async(() -> runner.runOnce(job, "x", run -> {
            ran.set(run);
            assertThat(run.lease().deadline()).isPresent();
            await(unblock);
            seenByTask.add(assertThrows(LeaseLostException.class, run.lease()::checkValid));
        }));
        eventually().until(() -> ran.get() != null && ran.get().lease().state() == LeaseState.LOST);
        // The hung run no longer holds the occurrence.
        eventually().until(() -> observer.inspect(job.lockName("x")).holder().isEmpty());
        unblock.countDown();
        assertThat(outcome.get(60, TimeUnit.SECONDS)).isEqualTo(JobOutcome.RAN);
        assertThat(seenByTask).hasSize(1);
    }

    @Test
    void extendingTheHoldKeepsALongRunsLeasePastItsFirstDeadline() {
        JobRunner runner = closeLater(JobRunner.create(client("a")));
        RunOnceJob job =
                RunOnceJob.builder("long").maxHold(Duration.ofSeconds(4)).build();
        runner.runOnce(job, "x", run -> {
            Instant firstDeadline = run.lease().deadline().orElseThrow();
            eventually().until(() -> Instant.now().isAfter(firstDeadline.minusSeconds(2)));
            run.lease().renew();
            assertThat(run.lease().deadline()).get().matches(d -> d.isAfter(firstDeadline));
            eventually().until(() -> Instant.now().isAfter(firstDeadline.plusMillis(200)));
            run.lease().checkValid(); // past the first deadline, still held thanks to the extension
        });
    }

    @Test
    void extendingTheHoldOfAJobWithoutMaxHoldIsAnError() {
        JobRunner runner = closeLater(JobRunner.create(client("a")));
        RunOnceJob job = RunOnceJob.builder("plain").build();
        runner.runOnce(job, "x", run -> assertThrows(IllegalStateException.class, run.lease()::renew));
    }

    @Test
    void anOccurrenceReachedAfterTheMisfireThresholdIsSkippedWithoutTouchingZooKeeper() {
        LockClient a = client("a");
        JobRunner runner = closeLater(JobRunner.create(a));
        RunOnceJob job = RunOnceJob.builder("late")
                .holdAtLeast(Duration.ofSeconds(2))
                .misfireThreshold(Duration.ofSeconds(1))
                .build();
        Instant longAgo = Instant.now().minusSeconds(30);
        AtomicInteger runs = new AtomicInteger();
        assertThat(runner.runOnce(job, longAgo, r -> runs.incrementAndGet())).isEqualTo(JobOutcome.MISFIRED);
        assertThat(runs).hasValue(0);
        assertThat(a.stats().creates()).isZero();
        // In time, the same job runs.
        assertThat(runner.runOnce(job, Instant.now(), r -> runs.incrementAndGet()))
                .isEqualTo(JobOutcome.RAN);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aRunnerThatGetsTheLockOnlyAfterTheMisfireThresholdDoesNotRun() {
        LockClient a = client("a");
        // A clock that jumps past the threshold between the check before the acquire and the one after.
        Instant scheduled = Instant.now();
        AtomicInteger reads = new AtomicInteger();
        Clock jumping = new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return reads.getAndIncrement() == 0 ? scheduled : scheduled.plusSeconds(5);
            }
        };
        JobRunner runner = closeLater(new JobRunner(a, jumping));
        RunOnceJob job = RunOnceJob.builder("slow-acquire")
                .holdAtLeast(Duration.ofSeconds(2))
                .misfireThreshold(Duration.ofSeconds(1))
                .build();
        AtomicInteger runs = new AtomicInteger();
        assertThat(runner.runOnce(job, scheduled, r -> runs.incrementAndGet())).isEqualTo(JobOutcome.MISFIRED);
        assertThat(runs).hasValue(0);
        eventually().until(() -> a.inspect(job.lockName(scheduled)).holder().isEmpty());
    }

    @Test
    void aReplicaThatStillHoldsAnOccurrenceDoesNotRunItAgainOnAnyThread() {
        LockClient a = client("a");
        JobRunner runner = closeLater(JobRunner.create(a));
        JobRunner sameClient = closeLater(JobRunner.create(a));
        JobRunner otherReplica = closeLater(JobRunner.create(client("b")));
        RunOnceJob job =
                RunOnceJob.builder("twice").holdAtLeast(Duration.ofSeconds(30)).build();
        AtomicInteger runs = new AtomicInteger();
        assertThat(runner.runOnce(job, "x", r -> runs.incrementAndGet())).isEqualTo(JobOutcome.RAN);
        // Same thread, same client: lock-core would hand this thread the same grant again.
        assertThat(runner.runOnce(job, "x", r -> runs.incrementAndGet())).isEqualTo(JobOutcome.TAKEN);
        // Through another runner on the same client, on the same thread: the same.
        assertThat(sameClient.runOnce(job, "x", r -> runs.incrementAndGet())).isEqualTo(JobOutcome.TAKEN);
        // And nested inside the run itself.
        assertThat(runner.runOnce(job, "y", r -> runner.runOnce(job, "y", inner -> runs.incrementAndGet())))
                .isEqualTo(JobOutcome.RAN);
        assertThat(otherReplica.runOnce(job, "x", r -> runs.incrementAndGet())).isEqualTo(JobOutcome.TAKEN);
        assertThat(runs).hasValue(1);
        // The TAKEN calls dropped nothing: the first run still holds "x", with its own token.
        assertThat(a.inspect(job.lockName("x")).entries()).hasSize(1);
    }

    @Test
    void anOccurrenceReleasedByOneRunnerCanBeRunAgainByAnotherOnTheSameClientAndThread() {
        LockClient a = client("a");
        JobRunner first = closeLater(JobRunner.create(a));
        JobRunner second = closeLater(JobRunner.create(a));
        RunOnceJob job = RunOnceJob.builder("keyed").build(); // no hold: released when the task returns
        AtomicInteger runs = new AtomicInteger();
        assertThat(first.runOnce(job, "x", r -> runs.incrementAndGet())).isEqualTo(JobOutcome.RAN);
        assertThat(second.runOnce(job, "x", r -> runs.incrementAndGet())).isEqualTo(JobOutcome.RAN);
        assertThat(runs).hasValue(2);
    }

    @Test
    void aQuickRunWhoseMaxHoldEndsJustAfterItsHoldAtLeastIsReleasedNotLost() {
        LockClient a = client("a");
        JobRunner runner = closeLater(JobRunner.create(a));
        Duration hold = Duration.ofSeconds(2);
        RunOnceJob job = RunOnceJob.builder("tight")
                .holdAtLeast(hold)
                .maxHold(hold.plus(RunOnceJob.MIN_HOLD_MARGIN))
                .build();
        AtomicReference<JobRun> ran = new AtomicReference<>();
        long started = System.nanoTime();
        assertThat(runner.runOnce(job, "x", ran::set)).isEqualTo(JobOutcome.RAN);

        LeaseState end = ran.get().lease().ended().toCompletableFuture().join();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(hold);
        assertThat(end).isEqualTo(LeaseState.RELEASED);
        assertThat(ran.get().lease().state()).isEqualTo(LeaseState.RELEASED);
        assertThat(a.stats().leasesLost()).isZero();
    }

    @Test
    void anInterruptedCallerGetsAcquireInterruptedExceptionWithItsFlagSetAndTheTaskDoesNotRun() {
        FreezableProxy proxy = proxy();
        JobRunner runner =
                closeLater(JobRunner.create(clientThrough(proxy, "a", SHORT_SESSION, Duration.ofSeconds(30))));
        RunOnceJob job = RunOnceJob.builder("interrupted").build();
        AtomicInteger runs = new AtomicInteger();
        proxy.freeze(); // the try cannot be answered: only the interrupt ends it
        Thread.currentThread().interrupt();
        try {
            AcquireInterruptedException e = assertThrows(
                    AcquireInterruptedException.class, () -> runner.runOnce(job, "x", r -> runs.incrementAndGet()));
            assertThat(e.lockName()).isEqualTo(job.lockName("x"));
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(runs).hasValue(0);
    }

    @Test
    void aFailingTaskIsRethrownAndItsOccurrenceStaysHeldForTheHold() {
        LockClient a = client("a");
        JobRunner runner = closeLater(JobRunner.create(a));
        RunOnceJob job =
                RunOnceJob.builder("fails").holdAtLeast(Duration.ofSeconds(30)).build();
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> runner.runOnce(job, "x", r -> {
                    throw new IllegalStateException("report generator broke");
                }));
        assertThat(e).hasMessage("report generator broke");
        assertThat(runner.runOnce(job, "x", r -> {})).isEqualTo(JobOutcome.TAKEN);
    }

    @Test
    void closingTheRunnerReleasesHeldOccurrencesAndRefusesNewRuns() {
        LockClient a = client("a");
        JobRunner runner = JobRunner.create(a);
        RunOnceJob job =
                RunOnceJob.builder("closing").holdAtLeast(Duration.ofMinutes(5)).build();
        AtomicReference<JobRun> ran = new AtomicReference<>();
        runner.runOnce(job, "x", ran::set);
        assertThat(ran.get().lease().state()).isEqualTo(LeaseState.HELD);
        runner.close();
        assertThat(ran.get().lease().state()).isEqualTo(LeaseState.RELEASED);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> runner.runOnce(job, "y", r -> {}));
        assertThat(e).hasMessageContaining("closed").hasMessageContaining("closing");
    }

    @Test
    void aBlankOccurrenceIsRejected() {
        JobRunner runner = closeLater(JobRunner.create(client("a")));
        RunOnceJob job = RunOnceJob.builder("j").build();
        assertThat(assertThrows(IllegalArgumentException.class, () -> runner.runOnce(job, " ", r -> {})))
                .hasMessageContaining("occurrence")
                .hasMessageContaining("'j'");
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(60, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

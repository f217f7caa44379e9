package io.zkfence.recipes.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.recipes.testing.ZooKeeperTestBase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class JobScheduleTest extends ZooKeeperTestBase {

    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stopExecutor() throws InterruptedException {
        executor.shutdownNow();
        assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void occurrencesAreTheMultiplesOfThePeriodAndAFailingTaskDoesNotStopTheSchedule() {
        JobRunner runner = closeLater(JobRunner.create(client("a")));
        RunOnceJob job = RunOnceJob.builder("ticks").build();
        List<String> occurrences = new CopyOnWriteArrayList<>();
        JobSchedule schedule = runner.scheduleAtFixedRate(executor, job, Duration.ofMillis(300), run -> {
            occurrences.add(run.occurrence());
            if (occurrences.size() == 1) {
                throw new IllegalStateException("first tick fails");
            }
        });
        eventually().until(() -> occurrences.size() >= 3);
        schedule.cancel();
        assertThat(schedule.isCancelled()).isTrue();
        assertThat(schedule.nextOccurrence()).isNull();
        for (String o : occurrences) {
            assertThat(Instant.parse(o).toEpochMilli() % 300).as(o).isZero();
        }
        assertThat(occurrences).doesNotHaveDuplicates();
    }

    @Test
    void cancellingStopsFurtherOccurrences() {
        JobRunner runner = closeLater(JobRunner.create(client("a")));
        List<String> occurrences = new CopyOnWriteArrayList<>();
        JobSchedule schedule = runner.scheduleAtFixedRate(
                executor,
                RunOnceJob.builder("stops").build(),
                Duration.ofMillis(200),
                run -> occurrences.add(run.occurrence()));
        eventually().until(() -> occurrences.size() >= 2);
        schedule.cancel();
        int fired = occurrences.size();
        // For more than two periods nothing new runs (one may have been firing as we cancelled).
        eventually().during(Duration.ofMillis(600)).until(() -> occurrences.size() <= fired + 1);
    }

    @Test
    void closingTheRunnerCancelsItsSchedules() {
        JobRunner runner = JobRunner.create(client("a"));
        JobSchedule schedule = runner.scheduleAtFixedRate(
                executor, RunOnceJob.builder("closes").build(), Duration.ofSeconds(1), run -> {});
        runner.close();
        assertThat(schedule.isCancelled()).isTrue();
        assertThrows(
                IllegalStateException.class,
                () -> runner.scheduleAtFixedRate(
                        executor, RunOnceJob.builder("after").build(), Duration.ofSeconds(1), run -> {}));
    }

    @Test
    void cancelledSchedulesAndSchedulesOfAStoppedExecutorLeaveTheRunner() throws InterruptedException {
        JobRunner runner = closeLater(JobRunner.create(client("a")));
        List<JobSchedule> made = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            made.add(runner.scheduleAtFixedRate(
                    executor, RunOnceJob.builder("job-" + i).build(), Duration.ofHours(1), run -> {}));
        }
        assertThat(runner.liveSchedules()).containsExactlyInAnyOrderElementsOf(made);
        made.forEach(JobSchedule::cancel);
        assertThat(runner.liveSchedules()).isEmpty();

        // shutdown(): the pending firing still runs, finds the executor closed and ends the schedule.
        ScheduledExecutorService soon = Executors.newSingleThreadScheduledExecutor();
        JobSchedule ended =
                runner.scheduleAtFixedRate(soon, RunOnceJob.builder("ends").build(), Duration.ofMillis(200), run -> {});
        soon.shutdown();
        assertThat(soon.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        assertThat(ended.isCancelled()).isTrue();
        assertThat(runner.liveSchedules()).isEmpty();

        // shutdownNow() drops the pending firing, so the schedule never hears of it: the runner
        // forgets it when the next schedule is made.
        ScheduledExecutorService dropped = Executors.newSingleThreadScheduledExecutor();
        JobSchedule orphan = runner.scheduleAtFixedRate(
                dropped, RunOnceJob.builder("orphan").build(), Duration.ofHours(1), run -> {});
        dropped.shutdownNow();
        assertThat(dropped.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        JobSchedule next = runner.scheduleAtFixedRate(
                executor, RunOnceJob.builder("next").build(), Duration.ofHours(1), run -> {});
        assertThat(runner.liveSchedules()).containsExactly(next).doesNotContain(orphan);
    }

    @Test
    void aPeriodUnderOneMillisecondIsRejected() {
        JobRunner runner = closeLater(JobRunner.create(client("a")));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> runner.scheduleAtFixedRate(
                        executor, RunOnceJob.builder("fast").build(), Duration.ofNanos(10), run -> {}));
        assertThat(e).hasMessageContaining("period").hasMessageContaining("'fast'");
    }
}

package io.zkfence.samples.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.recipes.jobs.JobOutcome;
import io.zkfence.recipes.jobs.JobRunner;
import io.zkfence.recipes.jobs.JobSchedule;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

class RunOnceJobSampleTest extends RecipeSampleTestBase {

    @Test
    void threeReplicasScheduleTheCleanupAndEachOccurrenceRunsOnOneOfThem() {
        RunOnceJobSample.createTables(db.dataSource);
        db.execute("insert into user_session (id, expires_at) values (1, now() - interval '1 hour'),"
                + " (2, now() + interval '1 hour')");
        JdbcFence fence = JdbcFence.create(db.dataSource);
        List<JobSchedule> schedules = new ArrayList<>();
        for (String replica : List.of("replica-1", "replica-2", "replica-3")) {
            ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
            closeLater(executor::shutdownNow);
            JobRunner jobs = closeLater(JobRunner.create(pod(replica)));
            schedules.add(RunOnceJobSample.scheduleCleanup(jobs, executor, fence, Duration.ofSeconds(1)));
        }
        Instant counted = schedules.get(2).nextOccurrence(); // every replica was scheduled before this one

        eventually()
                .until(() -> db.rows("select occurrence from job_runs where occurrence >= '" + counted + "'")
                                .size()
                        >= 4);
        schedules.forEach(JobSchedule::cancel);

        List<String> runs = db.rows("select occurrence, token, deleted from job_runs where occurrence >= '" + counted
                + "' order by occurrence");
        List<String> occurrences = runs.stream().map(r -> r.split("\\|")[0]).toList();
        assertThat(occurrences).doesNotHaveDuplicates();
        List<Long> tokens =
                runs.stream().map(r -> Long.parseLong(r.split("\\|")[1])).toList();
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        assertThat(db.rows("select id from user_session")).containsExactly("2");
        assertThat(db.rows("select sum(deleted) from job_runs")).containsExactly("1");
    }

    @Test
    void calledDirectlyOneReplicaRunsAnOccurrenceAndALateOneMisfires() {
        RunOnceJobSample.createTables(db.dataSource);
        JdbcFence fence = JdbcFence.create(db.dataSource);
        JobRunner a = closeLater(JobRunner.create(pod("replica-a")));
        JobRunner b = closeLater(JobRunner.create(pod("replica-b")));
        Duration period = Duration.ofMinutes(15);
        Instant now = Instant.now();

        assertThat(RunOnceJobSample.cleanup(a, fence, period, now)).isEqualTo(JobOutcome.RAN);
        assertThat(RunOnceJobSample.cleanup(b, fence, period, now)).isEqualTo(JobOutcome.TAKEN);
        assertThat(RunOnceJobSample.cleanup(b, fence, period, now.minus(period)))
                .isEqualTo(JobOutcome.MISFIRED);
        assertThat(db.rows("select occurrence from job_runs")).containsExactly(now.toString());
    }
}

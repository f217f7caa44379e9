package io.zkfence.samples.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.recipes.jobs.JobOutcome;
import io.zkfence.recipes.jobs.JobRunner;
import io.zkfence.recipes.jobs.RunOnceJob;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

class NightlyReportTest extends RecipeSampleTestBase {

    @Test
    void replicasFiringAtSlightlyDifferentMomentsWriteOneReport() {
        db.execute("create table daily_report (day varchar(10) primary key, token bigint not null)");
        JdbcFence fence = JdbcFence.create(db.dataSource);
        fence.createIfMissing();
        // Today's 02:00 has passed or not, so without the misfire threshold here; the hold stays.
        RunOnceJob job = RunOnceJob.builder("nightly-report")
                .holdAtLeast(Duration.ofMinutes(10))
                .build();
        NightlyReport onA = new NightlyReport(closeLater(JobRunner.create(pod("replica-a"))), fence, job);
        NightlyReport onB = new NightlyReport(closeLater(JobRunner.create(pod("replica-b"))), fence, job);
        Instant today2am = Instant.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofHours(2));

        JobOutcome a = onA.run(today2am.plusMillis(300)); // replica a's cron fired 0.3 s late
        JobOutcome b = onB.run(today2am.plusMillis(1900)); // replica b's 1.9 s late

        assertThat(a).isEqualTo(JobOutcome.RAN);
        assertThat(b).isEqualTo(JobOutcome.TAKEN);
        assertThat(db.rows("select day from daily_report"))
                .containsExactly(today2am.toString().substring(0, 10));
    }

    @Test
    void theProductionJobHoldsLongerThanItsMisfireThreshold() {
        assertThat(NightlyReport.JOB.holdAtLeast())
                .isGreaterThanOrEqualTo(NightlyReport.JOB.misfireThreshold().orElseThrow());
        assertThat(NightlyReport.JOB.maxHold()).contains(Duration.ofHours(2));
    }
}

package io.zkfence.samples.recipes;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.recipes.jobs.JobOutcome;
import io.zkfence.recipes.jobs.JobRunner;
import io.zkfence.recipes.jobs.RunOnceJob;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * A nightly job fired by a cron scheduler on every replica (Spring's {@code @Scheduled}, Quartz,
 * a Kubernetes CronJob per replica...) and run by one of them: see docs/run-once-jobs.md for the
 * Spring wiring.
 */
// snippet:nightly
public final class NightlyReport {

    static final RunOnceJob JOB = RunOnceJob.builder("nightly-report")
            .holdAtLeast(Duration.ofMinutes(10)) // > clock skew + scheduler lateness, twice over
            .misfireThreshold(Duration.ofMinutes(5)) // a replica reaching 02:00 later than 02:05 skips it
            .maxHold(Duration.ofHours(2)) // a hung run loses its lease after two hours
            .build();

    private final JobRunner jobs;
    private final JdbcFence fence;
    private final RunOnceJob job;

    public NightlyReport(JobRunner jobs, JdbcFence fence) {
        this(jobs, fence, JOB);
    }

    NightlyReport(JobRunner jobs, JdbcFence fence, RunOnceJob job) {
        this.jobs = jobs;
        this.fence = fence;
        this.job = job;
    }

    /** Called by the cron trigger at 02:00 UTC on every replica; one of them writes the report. */
    public JobOutcome run(Instant firedAt) {
        // The occurrence is the cron time, not the moment this replica happened to fire.
        Instant occurrence = firedAt.truncatedTo(ChronoUnit.DAYS).plus(Duration.ofHours(2));
        return jobs.runOnce(
                job,
                occurrence,
                run -> fence.inTransaction("nightly-report", run.token(), connection -> {
                    try (PreparedStatement insert =
                            connection.prepareStatement("insert into daily_report (day, token) values (?, ?)")) {
                        insert.setString(1, run.occurrence().substring(0, 10));
                        insert.setLong(2, run.token());
                        return insert.executeUpdate();
                    }
                }));
    }
}
// end:nightly

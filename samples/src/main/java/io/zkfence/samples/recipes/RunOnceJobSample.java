package io.zkfence.samples.recipes;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.LockClient;
import io.zkfence.recipes.jobs.JobOutcome;
import io.zkfence.recipes.jobs.JobRun;
import io.zkfence.recipes.jobs.JobRunner;
import io.zkfence.recipes.jobs.JobSchedule;
import io.zkfence.recipes.jobs.RunOnceJob;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import javax.sql.DataSource;

/**
 * A job every replica schedules and exactly one runs per occurrence. Start it on several
 * machines (or in several terminals): every period, one of them deletes the expired sessions
 * and logs the run in {@code job_runs}; the others skip that occurrence at once.
 *
 * <pre>
 * RunOnceJobSample &lt;zookeeper&gt; &lt;jdbc-url&gt; &lt;user&gt; &lt;password&gt; [period-seconds, default 60]
 * </pre>
 */
public final class RunOnceJobSample {

    private RunOnceJobSample() {}

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 4 && args.length != 5) {
            System.err.println("usage: RunOnceJobSample <zookeeper> <jdbc-url> <user> <password> [period-seconds]");
            System.exit(2);
        }
        DataSource db = SampleDatabase.postgres(args[1], args[2], args[3]);
        createTables(db);
        Duration period = Duration.ofSeconds(args.length == 5 ? Long.parseLong(args[4]) : 60);
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown));
        try (LockClient client = LockClient.connect(args[0]);
                JobRunner jobs = JobRunner.create(client)) {
            JobSchedule schedule = scheduleCleanup(jobs, executor, JdbcFence.create(db), period);
            System.out.println("scheduled " + schedule.job().name() + " every " + period + ", next at "
                    + schedule.nextOccurrence());
            stop.await();
        } finally {
            executor.shutdownNow();
        }
    }

    static void createTables(DataSource db) {
        JdbcFence.create(db).createIfMissing();
        SampleDatabase.execute(
                db,
                "create table if not exists user_session ("
                        + "id bigint primary key, expires_at timestamp with time zone not null)");
        SampleDatabase.execute(
                db,
                "create table if not exists job_runs ("
                        + "job varchar(100) not null, occurrence varchar(64) not null, token bigint not null, deleted int not null)");
    }

    // snippet:job
    /** The cleanup job: one run per period, whichever replica gets there first. */
    static RunOnceJob cleanupJob(Duration period) {
        return RunOnceJob.builder("expired-sessions-cleanup")
                .holdAtLeast(period.multipliedBy(3).dividedBy(4)) // keep the occurrence most of the period
                .misfireThreshold(period.dividedBy(2)) // skip it if more than half a period late
                .maxHold(period.multipliedBy(3)) // a hung run loses its lease
                .build();
    }
    // end:job

    // snippet:schedule
    /** Every replica calls this at start-up; each occurrence runs on one of them. */
    static JobSchedule scheduleCleanup(
            JobRunner jobs, ScheduledExecutorService executor, JdbcFence fence, Duration period) {
        return jobs.scheduleAtFixedRate(executor, cleanupJob(period), period, run -> deleteExpiredSessions(fence, run));
    }
    // end:schedule

    // snippet:plain
    /** Without the adapter: whatever fires the job calls this with the occurrence's scheduled time. */
    static JobOutcome cleanup(JobRunner jobs, JdbcFence fence, Duration period, Instant scheduledAt) {
        return jobs.runOnce(cleanupJob(period), scheduledAt, run -> deleteExpiredSessions(fence, run));
    }
    // end:plain

    // snippet:task
    /** The job's work, fenced by the run's token and logged in the same transaction. */
    static void deleteExpiredSessions(JdbcFence fence, JobRun run) {
        fence.inTransaction(run.jobName(), run.token(), connection -> {
            int deleted;
            try (PreparedStatement delete =
                    connection.prepareStatement("delete from user_session where expires_at < now()")) {
                deleted = delete.executeUpdate();
            }
            try (PreparedStatement log = connection.prepareStatement(
                    "insert into job_runs (job, occurrence, token, deleted) values (?, ?, ?, ?)")) {
                log.setString(1, run.jobName());
                log.setString(2, run.occurrence());
                log.setLong(3, run.token());
                log.setInt(4, deleted);
                return log.executeUpdate();
            }
        });
    }
    // end:task
}

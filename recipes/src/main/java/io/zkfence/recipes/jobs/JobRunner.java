package io.zkfence.recipes.jobs;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each occurrence of a {@link RunOnceJob} on exactly one of the replicas that fire it (cron
 * de-duplication, like ShedLock), with a fencing token for the run's writes.
 *
 * <pre>{@code
 * JobRunner jobs = JobRunner.create(lockClient);
 * RunOnceJob report = RunOnceJob.builder("nightly-report")
 *         .holdAtLeast(Duration.ofMinutes(5)).maxHold(Duration.ofHours(1)).build();
 * // every replica, at 02:00 by its own clock:
 * jobs.runOnce(report, Instant.parse("2025-06-01T02:00:00Z"), run -> writeReport(run.token()));
 * }</pre>
 *
 * <p>Each occurrence is its own lock, {@code <job>@<occurrence>}, taken with
 * {@link FencedLock#tryAcquire()}: the first replica gets it and runs the task on the calling
 * thread, the others return {@link JobOutcome#TAKEN} at once, without waiting. After the task
 * the winner keeps the lock until {@code holdAtLeast} has passed since it started trying — on a
 * background timer, not on the caller's thread — then releases it. Occurrences are independent,
 * so a long run does not block the next occurrence.
 *
 * <p>Thread-safe; one runner per {@link LockClient} is enough. A replica that already holds an
 * occurrence (from an earlier call still inside its hold, through this runner or another one on
 * the same client) gets {@link JobOutcome#TAKEN} for it too, on any thread: the lock is tried
 * on a fresh thread, so lock-core's per-thread re-entrancy never hands out the earlier run's
 * grant again.
 */
public final class JobRunner implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

    private final LockClient client;
    private final Clock clock;
    /** Releases waiting for their hold-at-least to pass, so close() can do them at once. */
    private final Set<Lease> holding = ConcurrentHashMap.newKeySet();

    private final Set<JobSchedule> schedules = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    JobRunner(LockClient client, Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** A runner whose occurrences are locks of {@code client}, on its ZooKeeper session. */
    public static JobRunner create(LockClient client) {
        return new JobRunner(client, Clock.systemUTC());
    }

    /**
     * Runs the occurrence of {@code job} scheduled at {@code scheduledAt}, if no other replica
     * has it; the occurrence key is the time in ISO-8601 UTC, so every replica must pass the
     * same instant (the schedule's time, not {@code Instant.now()}). With a misfire threshold,
     * an occurrence reached too late is skipped.
     *
     * @return {@link JobOutcome#RAN}, {@link JobOutcome#TAKEN} or {@link JobOutcome#MISFIRED}
     * @throws io.zkfence.lock.CoordinationException       if ZooKeeper cannot be reached within
     *                                                      the client's operation timeout (the
     *                                                      task did not run)
     * @throws io.zkfence.lock.AcquireInterruptedException if the thread is interrupted while
     *                                                      trying (its flag is set again)
     * @throws IllegalArgumentException                     if the lock name would be invalid
     * @throws IllegalStateException                        if this runner is closed
     * @throws RuntimeException                             whatever the task threw, after the
     *                                                      release was scheduled
     */
    public JobOutcome runOnce(RunOnceJob job, Instant scheduledAt, JobTask task) {
        Objects.requireNonNull(scheduledAt, "scheduledAt");
        return run(job, scheduledAt.toString(), scheduledAt, task);
    }

    /**
     * Runs the occurrence {@code occurrence} of {@code job} (any key every replica derives the
     * same way, e.g. {@code "2025-06-01"} or a deployment id), if no other replica has it. The
     * misfire threshold does not apply: the key carries no time.
     *
     * @throws IllegalArgumentException if {@code occurrence} is null or blank, or the lock name
     *                                  would be invalid
     * @see #runOnce(RunOnceJob, Instant, JobTask) the other outcomes and exceptions
     */
    public JobOutcome runOnce(RunOnceJob job, String occurrence, JobTask task) {
        if (occurrence == null || occurrence.isBlank()) {
            throw new IllegalArgumentException(
                    "occurrence must not be null or blank (job '" + (job == null ? null : job.name()) + "')");
        }
        return run(job, occurrence, null, task);
    }

    /**
     * Fires {@code job} on {@code executor} every {@code period}, at the multiples of the
     * period since the epoch (UTC), so every replica computes the same occurrence times with no
     * coordination: a period of 1 minute fires at each whole minute. Each firing calls
     * {@link #runOnce(RunOnceJob, Instant, JobTask)} with that time, so one replica runs it.
     *
     * <p>A failing task or an unreachable ZooKeeper is logged and the schedule goes on (unlike
     * {@code scheduleAtFixedRate}, which stops at the first exception). Occurrences whose time
     * passed while this replica was busy are skipped, apart from those still within the misfire
     * threshold. Cancel with {@link JobSchedule#cancel()} or by shutting the executor down.
     *
     * @throws IllegalArgumentException if {@code period} is shorter than 1 ms
     */
    public JobSchedule scheduleAtFixedRate(
            ScheduledExecutorService executor, RunOnceJob job, Duration period, JobTask task) {
        Objects.requireNonNull(executor, "executor");
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(period, "period");
        if (period.toMillis() < 1) {
            throw new IllegalArgumentException(
                    "period must be at least 1 ms, was " + period + " (job '" + job.name() + "')");
        }
        if (closed) {
            throw new IllegalStateException("JobRunner is closed (job '" + job.name() + "')");
        }
        // A schedule whose executor was shut down with shutdownNow() never hears of it (its next
        // firing is dropped), so it cannot leave the set itself; forget such schedules here.
        schedules.removeIf(JobSchedule::executorTerminated);
        JobSchedule schedule = new JobSchedule(this, executor, job, period, task, clock);
        schedules.add(schedule);
        schedule.start();
        if (closed) {
            schedule.cancel(); // close() ran between the check and the add
        }
        return schedule;
    }

    /**
     * Cancels this runner's schedules, releases at once the occurrences still held for their
     * hold-at-least (so a late replica may run them again), and refuses further runs. Does not
     * close the lock client or the executors. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        schedules.forEach(JobSchedule::cancel);
        for (Lease lease : holding) {
            release(lease);
        }
    }

    /** A cancelled or ended schedule leaves the runner, so a runner does not keep every schedule it ever made. */
    void forget(JobSchedule schedule) {
        schedules.remove(schedule);
    }

    /** The schedules still firing, for tests. */
    Set<JobSchedule> liveSchedules() {
        return Set.copyOf(schedules);
    }

    // ---- one occurrence ----

    private JobOutcome run(RunOnceJob job, String occurrence, Instant scheduledAt, JobTask task) {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(task, "task");
        if (closed) {
            throw new IllegalStateException(
                    "JobRunner is closed (job '" + job.name() + "', occurrence " + occurrence + ")");
        }
        // Never re-entrant: lock-core would hand a thread that still holds this occurrence (its
        // hold-at-least, a nested call, another runner on the same client) the same grant again,
        // a second run. Non-re-entrant, it finds our own earlier run holding it: TAKEN.
        FencedLock lock = client.lock(job.lockName(occurrence)).nonReentrant();
        if (job.maxHold().isPresent()) {
            lock = lock.withMaxHold(job.maxHold().get());
        }
        if (misfired(job, scheduledAt)) {
            return misfire(job, occurrence, scheduledAt);
        }
        // Hold-at-least counts from here, never later than the grant, where max-hold's clock
        // starts: so with maxHold > holdAtLeast the release is due before the max-hold deadline.
        long started = System.nanoTime();
        Optional<Lease> acquired = lock.tryAcquire();
        if (acquired.isEmpty()) {
            log.debug(
                    "job '{}' occurrence {} is taken (by another replica, or still held by this one)",
                    job.name(),
                    occurrence);
            return JobOutcome.TAKEN;
        }
        Lease lease = acquired.get();
        // Checked again after acquiring: had the lock been free only because the winner released
        // it after its hold, our acquire would have come after the hold, so too late to run.
        if (misfired(job, scheduledAt)) {
            finish(lease, Duration.ZERO, started);
            return misfire(job, occurrence, scheduledAt);
        }
        log.debug("job '{}' occurrence {} runs here with token {}", job.name(), occurrence, lease.token());
        try {
            task.run(new JobRun(job.name(), occurrence, lease));
        } finally {
            if (lease.state() == LeaseState.LOST) {
                log.warn(
                        "job '{}' occurrence {} (token {}) lost its lease while running: {}",
                        job.name(),
                        occurrence,
                        lease.token(),
                        lease.endReason().orElse("lease lost"));
            }
            finish(lease, job.holdAtLeast(), started);
        }
        return JobOutcome.RAN;
    }

    private boolean misfired(RunOnceJob job, Instant scheduledAt) {
        if (scheduledAt == null || job.misfireThreshold().isEmpty()) {
            return false;
        }
        return clock.instant().isAfter(scheduledAt.plus(job.misfireThreshold().get()));
    }

    private JobOutcome misfire(RunOnceJob job, String occurrence, Instant scheduledAt) {
        log.info(
                "job '{}' occurrence {} misfired: reached at {}, more than {} after its time; skipped",
                job.name(),
                occurrence,
                clock.instant(),
                job.misfireThreshold().orElseThrow());
        return JobOutcome.MISFIRED;
    }

    /** Releases the run's lease once {@code hold} has passed since {@code startedNanos}, off the caller's thread. */
    private void finish(Lease lease, Duration hold, long startedNanos) {
        long remaining = hold.toNanos() - (System.nanoTime() - startedNanos);
        if (remaining <= 0 || closed) {
            release(lease);
            return;
        }
        holding.add(lease);
        Executor later = CompletableFuture.delayedExecutor(
                remaining,
                TimeUnit.NANOSECONDS,
                r -> Thread.ofVirtual().name("zkfence-job-release").start(r));
        later.execute(() -> release(lease));
        if (closed) {
            release(lease); // close() ran between the check and the add
        }
    }

    private void release(Lease lease) {
        holding.remove(lease);
        lease.release(); // idempotent; never throws for an unreachable ZooKeeper
    }
}

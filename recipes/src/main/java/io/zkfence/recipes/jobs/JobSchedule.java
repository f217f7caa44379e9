package io.zkfence.recipes.jobs;

import io.zkfence.lock.AcquireInterruptedException;
import io.zkfence.lock.LockException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run-once job firing on a {@link ScheduledExecutorService}, from
 * {@link JobRunner#scheduleAtFixedRate}. Occurrence times are the multiples of the period since
 * the epoch, so replicas agree on them; each firing schedules the next one.
 */
public final class JobSchedule {

    private static final Logger log = LoggerFactory.getLogger(JobSchedule.class);

    private final JobRunner runner;
    private final ScheduledExecutorService executor;
    private final RunOnceJob job;
    private final long periodMillis;
    private final JobTask task;
    private final Clock clock;
    private final Object guard = new Object();
    // Guarded by guard.
    private ScheduledFuture<?> pending;
    private Instant next;
    private boolean cancelled;

    JobSchedule(
            JobRunner runner,
            ScheduledExecutorService executor,
            RunOnceJob job,
            Duration period,
            JobTask task,
            Clock clock) {
        this.runner = runner;
        this.executor = executor;
        this.job = job;
        this.periodMillis = period.toMillis();
        this.task = task;
        this.clock = clock;
    }

    /** The job this schedule fires. */
    public RunOnceJob job() {
        return job;
    }

    /** The occurrence this schedule will fire next; null once cancelled, or once it found its executor shut down. */
    public Instant nextOccurrence() {
        synchronized (guard) {
            return cancelled ? null : next;
        }
    }

    /** Fires no further occurrences; a run in progress finishes. Idempotent. */
    public void cancel() {
        synchronized (guard) {
            cancelled = true;
            if (pending != null) {
                pending.cancel(false);
            }
        }
        runner.forget(this);
    }

    public boolean isCancelled() {
        synchronized (guard) {
            return cancelled;
        }
    }

    @Override
    public String toString() {
        return "JobSchedule{" + job.name() + " every " + periodMillis + " ms, next " + nextOccurrence() + "}";
    }

    /** True once the executor has terminated: nothing of this schedule can fire any more. */
    boolean executorTerminated() {
        return executor.isTerminated();
    }

    void start() {
        scheduleFrom(clock.instant().minusMillis(1));
    }

    /** Schedules the first occurrence after {@code previous} that is not too far in the past. */
    private void scheduleFrom(Instant previous) {
        Instant now = clock.instant();
        Instant earliest = now.minus(job.misfireThreshold().orElse(Duration.ZERO));
        long slot = Math.floorDiv(previous.toEpochMilli(), periodMillis) + 1;
        long firstInTime = Math.floorDiv(earliest.toEpochMilli() + periodMillis - 1, periodMillis);
        Instant occurrence = Instant.ofEpochMilli(Math.max(slot, firstInTime) * periodMillis);
        long delay = Math.max(0, occurrence.toEpochMilli() - now.toEpochMilli());
        synchronized (guard) {
            if (cancelled) {
                return;
            }
            next = occurrence;
            try {
                pending = executor.schedule(() -> fire(occurrence), delay, TimeUnit.MILLISECONDS);
                return;
            } catch (RejectedExecutionException e) {
                log.debug("executor of job '{}' is shut down; schedule ends", job.name());
                cancelled = true;
            }
        }
        runner.forget(this);
    }

    private void fire(Instant occurrence) {
        boolean[] taskStarted = {false};
        try {
            if (!isCancelled()) {
                runner.runOnce(job, occurrence, run -> {
                    taskStarted[0] = true;
                    task.run(run);
                });
            }
        } catch (AcquireInterruptedException e) {
            log.debug("job '{}' occurrence {} interrupted; the schedule ends", job.name(), occurrence);
            cancel();
        } catch (LockException e) {
            if (taskStarted[0]) {
                log.error("job '{}' occurrence {} failed", job.name(), occurrence, e);
            } else {
                // ZooKeeper unreachable or refusing: this replica skips the occurrence, others may run it.
                log.warn("job '{}' occurrence {} skipped on this replica: {}", job.name(), occurrence, e.getMessage());
            }
        } catch (RuntimeException e) {
            log.error("job '{}' occurrence {} failed", job.name(), occurrence, e);
        } catch (Error e) {
            log.error("job '{}' occurrence {} failed; the schedule ends", job.name(), occurrence, e);
            cancel();
            throw e;
        } finally {
            if (Thread.currentThread().isInterrupted()) {
                cancel(); // the executor is being shut down
            }
            scheduleFrom(occurrence);
        }
    }
}

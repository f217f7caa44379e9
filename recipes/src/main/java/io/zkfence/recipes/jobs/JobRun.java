package io.zkfence.recipes.jobs;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseLostException;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LeaseSuspendedException;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * One occurrence of a job being run by this replica: what a {@link JobTask} receives. Its
 * {@link #token()} is the fencing token of the occurrence's lease.
 *
 * <p>Tokens of a job's runs grow with time: each is the creation zxid of the run's queue node,
 * and zxids increase across the whole ensemble (see docs/token-contract.md). So a resource
 * fenced under one key for the job (for instance {@code "nightly-report"}) accepts each run's
 * writes and rejects those of an older run that was paused past its lease and wakes up after a
 * newer run has written.
 */
public final class JobRun {

    private final String jobName;
    private final String occurrence;
    private final Lease lease;

    JobRun(String jobName, String occurrence, Lease lease) {
        this.jobName = jobName;
        this.occurrence = occurrence;
        this.lease = lease;
    }

    /** The job's name. */
    public String jobName() {
        return jobName;
    }

    /** The occurrence key: the scheduled time in ISO-8601 UTC, or the caller's key. */
    public String occurrence() {
        return occurrence;
    }

    /** The name of the lock this occurrence is held under: {@code <job name>@<occurrence>}. */
    public String lockName() {
        return lease.lockName();
    }

    /** The fencing token of this run: pass it to every write the job makes. */
    public long token() {
        return lease.token();
    }

    /** The state of the run's lease. {@link LeaseState#LOST} once hold-at-most passed or the session expired. */
    public LeaseState state() {
        return lease.state();
    }

    /** True while the run's lease is {@link LeaseState#HELD}. */
    public boolean isValid() {
        return lease.isValid();
    }

    /**
     * Throws unless the run's lease is {@link LeaseState#HELD}; a local check, no round trip. A
     * long job calls it between steps to stop once hold-at-most has passed or its session is gone.
     *
     * @throws LeaseSuspendedException while the connection to ZooKeeper is suspended
     * @throws LeaseLostException      once the lease is lost
     */
    public void checkValid() {
        lease.checkValid();
    }

    /** When hold-at-most ends this run's lease, if the job has a hold-at-most. */
    public Optional<Instant> holdDeadline() {
        return lease.deadline();
    }

    /**
     * Pushes the hold-at-most deadline to now + hold-at-most, for a job that is making progress
     * and needs longer (like ShedLock's lock extension).
     *
     * @throws IllegalStateException if the job has no hold-at-most
     * @throws LeaseLostException    if the lease is already lost
     */
    public void extendHold() {
        lease.renew();
    }

    /** Completes with LOST or RELEASED when the run's lease ends (after hold-at-least, at the earliest). */
    public CompletionStage<LeaseState> ended() {
        return lease.ended();
    }

    @Override
    public String toString() {
        return "JobRun{job=" + jobName + ", occurrence=" + occurrence + ", token=" + token() + ", state=" + state() + "}";
    }
}

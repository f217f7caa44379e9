package io.zkfence.recipes.jobs;

import io.zkfence.lock.Lease;
import io.zkfence.lock.LeaseState;

/**
 * One occurrence of a job being run by this replica: what a {@link JobTask} receives. Its
 * {@link #token()} is the fencing token of the occurrence's lease; the lease itself is
 * {@link #lease()} (state, checks, max-hold renewal), as etcd hands out its session.
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

    /**
     * The run's lease: its state ({@link LeaseState#LOST} once the max-hold passed or the session
     * expired), {@link Lease#checkValid()} between a long job's steps, {@link Lease#renew()} to
     * push the max-hold deadline for a job making progress (as ShedLock's lock extension),
     * {@link Lease#deadline()}, {@link Lease#ended()} (after hold-at-least, at the earliest) and
     * listeners. The runner releases it when the task returns (or when hold-at-least ends):
     * do not release it yourself.
     */
    public Lease lease() {
        return lease;
    }

    @Override
    public String toString() {
        return "JobRun{job=" + jobName + ", occurrence=" + occurrence + ", token=" + token() + ", state="
                + lease.state() + "}";
    }
}

package io.zkfence.recipes.jobs;

/** What {@link JobRunner#runOnce} did with one occurrence on this replica. */
public enum JobOutcome {
    /** This replica won the occurrence and ran the task. */
    RAN,
    /** Another replica holds the occurrence (running it, or holding it for {@code holdAtLeast}): skipped at once. */
    TAKEN,
    /**
     * This replica got to the occurrence more than the job's {@code misfireThreshold} after its
     * scheduled time, when it may already have run and been released elsewhere: skipped.
     */
    MISFIRED
}

package io.zkfence.recipes.jobs;

/**
 * The work of one occurrence of a run-once job. It runs on the thread that called
 * {@link JobRunner#runOnce}, only on the replica that won the occurrence.
 *
 * <p>Pass {@link JobRun#token()} to every write the job makes, so that a resource that has seen
 * a newer run's token rejects this run's writes if this replica was paused past its lease.
 * Wrap checked exceptions: whatever the task throws is rethrown by {@code runOnce} unchanged.
 */
@FunctionalInterface
public interface JobTask {

    /** Runs the occurrence described by {@code run}. */
    void run(JobRun run);
}

package io.zkfence.bench;

/** One benchmark of the report. Records its figures and targets in the run's {@link Results}. */
interface Workload {

    /** Short name used in figure names and for {@code --only}. */
    String name();

    /** Whether the workload needs the ZooKeeper ensemble. */
    boolean needsZooKeeper();

    /** Whether the workload needs the Hazelcast CP members (only workloads that also need ZooKeeper may). */
    default boolean needsHazelcast() {
        return false;
    }

    /**
     * Whether the workload runs only when named ({@code --only}): minutes long, it is not part of a
     * full run nor of the smoke run.
     */
    default boolean optIn() {
        return false;
    }

    /** Runs the workload, records figures, draws its plot into the output folder. */
    Section run(BenchContext ctx);
}

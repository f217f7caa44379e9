package io.zkfence.bench;

import java.nio.file.Path;

/**
 * What a workload runs with.
 *
 * @param settings  the counts (smoke or full)
 * @param results   where figures and targets go
 * @param out       the output folder (plots are written here)
 * @param zk        the ensemble, or null for workloads that do not need it
 * @param hazelcast the Hazelcast CP members, or null for workloads that do not need them
 * @param log       progress lines
 */
record BenchContext(Settings settings, Results results, Path out, ZkCluster zk, HazelcastCp hazelcast, Progress log) {}

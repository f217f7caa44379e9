package io.zkfence.lock;

import java.time.Duration;

/**
 * How long one cohort keeps its queue node: at most {@code maxBatch} turns and {@code maxBatchTime}
 * since the node was granted; then the node goes to the next process in line.
 */
record CohortPolicy(int maxBatch, Duration maxBatchTime) {

    /** Defaults; see docs/lock-core.md ("Hot locks: cohort mode") for how they were chosen. */
    static final CohortPolicy DEFAULT = new CohortPolicy(32, Duration.ofMillis(20));

    CohortPolicy {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("cohort maxBatch must be at least 1, was " + maxBatch);
        }
        if (maxBatchTime == null
                || maxBatchTime.isNegative()
                || maxBatchTime.isZero()
                || maxBatchTime.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new IllegalArgumentException(
                    "cohort maxBatchTime must be more than 0 and at most 1 min, was " + maxBatchTime);
        }
    }
}

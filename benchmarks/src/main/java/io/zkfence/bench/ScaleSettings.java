package io.zkfence.bench;

import java.time.Duration;
import java.util.List;

/**
 * How much the service-at-scale workload ({@link ServiceScaleBench}) does. {@link #full()} is what
 * {@code ./bench --only service-scale} runs; {@link #smoke()} runs the same code in seconds.
 *
 * @param levels        leases held at once, level by level (each level adds leases to the last
 *                      one's, after the waiters' level)
 * @param ttl           each lease's TTL
 * @param renewEvery    each holder renews this long after its grant and at this rate (a third of the TTL)
 * @param ramp          a level's new leases are acquired evenly over this time
 * @param settle        after the ramp, before measuring: every lease renews once
 * @param windows       how long each level is measured, one per level
 * @param waiterKeys    the waiters' level: keys held, each with waiters queued behind its holder
 * @param waitersPerKey waiters queued on each of those keys
 * @param waiterWindow  how long the waiters' level is measured while they wait
 * @param waitFor       the waiters' {@code waitMillis}
 * @param etcdWindows   how long etcd is measured at each level
 * @param ceiling       how long each shape of the ensemble's own ceiling runs
 * @param replicaWarmUp the replicas' {@code --warm-up-cycles}
 * @param batchMax      the most leases in one batch renewal call (the service's limit, 1,000)
 */
record ScaleSettings(
        List<Integer> levels,
        Duration ttl,
        Duration renewEvery,
        Duration ramp,
        Duration settle,
        List<Duration> windows,
        int waiterKeys,
        int waitersPerKey,
        Duration waiterWindow,
        Duration waitFor,
        List<Duration> etcdWindows,
        Duration ceiling,
        int replicaWarmUp,
        int batchMax) {

    static ScaleSettings full() {
        return new ScaleSettings(
                List.of(1_000, 10_000, 50_000),
                Duration.ofSeconds(30),
                Duration.ofSeconds(10),
                Duration.ofSeconds(30),
                Duration.ofSeconds(12),
                List.of(Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(60)),
                1_000,
                10,
                Duration.ofSeconds(30),
                Duration.ofSeconds(280),
                List.of(Duration.ofSeconds(20), Duration.ofSeconds(20), Duration.ofSeconds(30)),
                Duration.ofSeconds(5),
                1_000,
                1_000);
    }

    static ScaleSettings smoke() {
        return new ScaleSettings(
                List.of(50),
                Duration.ofSeconds(3),
                Duration.ofSeconds(1),
                Duration.ofSeconds(1),
                Duration.ofMillis(1_200),
                List.of(Duration.ofSeconds(2)),
                5,
                3,
                Duration.ofSeconds(2),
                Duration.ofSeconds(60),
                List.of(Duration.ofSeconds(2)),
                Duration.ofSeconds(1),
                0,
                20);
    }

    ScaleSettings {
        if (levels.isEmpty() || windows.size() != levels.size() || etcdWindows.size() != levels.size()) {
            throw new IllegalArgumentException("one window per level: " + levels + ", " + windows + ", " + etcdWindows);
        }
        if (batchMax < 1 || batchMax > 1_000) {
            throw new IllegalArgumentException("batchMax must be 1 to 1000 (the service's limit), was " + batchMax);
        }
        if (levels.getFirst() < waiterKeys) {
            throw new IllegalArgumentException(
                    "the first level (" + levels.getFirst() + ") holds the waiters' " + waiterKeys + " keys");
        }
    }
}

package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LockStatsTest {

    @Test
    void theSixCounterConstructorOfEarlierVersionsCountsNoQueueChecks() {
        LockStats stats = new LockStats(1, 2, 3, 4, 5, 6);

        assertThat(stats).isEqualTo(new LockStats(1, 2, 3, 4, 5, 6, 0));
        assertThat(stats.queueChecks()).isZero();
    }
}

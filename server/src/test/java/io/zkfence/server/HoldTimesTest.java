package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HoldTimesTest {

    @Test
    void aLeaseReleasedWhileItLastsIsMeasuredFromItsGrant() {
        HoldTimes holds = new HoldTimes();
        holds.granted("t1", 1_000, 10_000, 0);

        assertThat(holds.released("t1", 5_000, 9_000)).isEqualTo(4_000);
        assertThat(holds.size()).isZero();
    }

    @Test
    void aLeaseThatEndedBeforeItsReleaseIsNotMeasured() {
        HoldTimes holds = new HoldTimes();
        holds.granted("t1", 1_000, 10_000, 0);

        assertThat(holds.released("t1", 5_000, 10_001)).isEqualTo(-1);
    }

    @Test
    void aRenewalThroughThisReplicaMovesTheEnd() {
        HoldTimes holds = new HoldTimes();
        holds.granted("t1", 1_000, 10_000, 0);
        holds.renewed("t1", 20_000);

        assertThat(holds.released("t1", 5_000, 15_000)).isEqualTo(4_000);
    }

    @Test
    void leasesThatEndWithoutAReleaseHereAreForgottenNotKeptForEver() {
        HoldTimes holds = new HoldTimes();
        for (int i = 0; i < 5_000; i++) {
            // Each lease lasts 10 ms and none is released here (expired, or released elsewhere).
            holds.granted("t" + i, i, i + 10, i);
        }

        assertThat(holds.size()).as("only the leases that may still last").isLessThan(1_100);
    }
}

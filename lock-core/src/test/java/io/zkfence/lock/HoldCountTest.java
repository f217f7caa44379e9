package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HoldCountTest {

    @Test
    void onlyTheLastDropReleases() {
        HoldCount holds = new HoldCount();
        assertThat(holds.tryAdd()).isTrue();
        assertThat(holds.drop()).isFalse();
        assertThat(holds.drop()).isTrue();
        assertThat(holds.count()).isZero();
    }

    @Test
    void aCountThatReachedZeroCannotBeRevived() {
        HoldCount holds = new HoldCount();
        assertThat(holds.drop()).isTrue();
        assertThat(holds.tryAdd()).isFalse();
        assertThat(holds.drop()).isFalse();
    }

    @Test
    void clearDropsEveryHoldAndLaterDropsReleaseNothing() {
        HoldCount holds = new HoldCount();
        holds.tryAdd();
        holds.tryAdd();
        holds.clear();
        assertThat(holds.drop()).isFalse();
        assertThat(holds.tryAdd()).isFalse();
    }
}

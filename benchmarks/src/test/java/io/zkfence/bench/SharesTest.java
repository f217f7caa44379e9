package io.zkfence.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class SharesTest {

    @Test
    void equalSharesDeviateByNothing() {
        assertThat(Shares.worstDeviation(new long[] {250, 250, 250, 250})).isZero();
    }

    @Test
    void theWorstGroupSetsTheFigureWhicheverSideOfFairItIs() {
        // fair = 100: 125 is +25 %, 70 is −30 %
        assertThat(Shares.worstDeviation(new long[] {125, 105, 100, 70})).isCloseTo(0.30, within(1e-12));
        assertThat(Shares.worstDeviation(new long[] {140, 90, 90, 80})).isCloseTo(0.40, within(1e-12));
    }

    @Test
    void aStarvedGroupDeviatesByAWholeShare() {
        assertThat(Shares.worstDeviation(new long[] {0, 200})).isEqualTo(1.0);
    }

    @Test
    void theIssuesBoundReadsAsWithinAQuarterOfAFairShare() {
        assertThat(Shares.worstDeviation(new long[] {125, 75, 100, 100})).isLessThanOrEqualTo(0.25);
        assertThat(Shares.worstDeviation(new long[] {126, 74, 100, 100})).isGreaterThan(0.25);
    }

    @Test
    void noGrantsOrNoGroupsHaveNoShareToJudge() {
        assertThatThrownBy(() -> Shares.worstDeviation(new long[] {0, 0}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no grants");
        assertThatThrownBy(() -> Shares.worstDeviation(new long[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Shares.worstDeviation(new long[] {5, -1}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void countsAddUpPerGroupAndListInOrder() {
        long[] a = {1, 2, 3};
        assertThat(Shares.plus(a, new long[] {10, 20, 30})).containsExactly(11, 22, 33);
        assertThat(a).containsExactly(1, 2, 3);
        assertThat(Shares.list(new long[] {10, 12, 9})).isEqualTo("10 / 12 / 9");
        assertThatThrownBy(() -> Shares.plus(a, new long[] {1})).isInstanceOf(IllegalArgumentException.class);
    }
}

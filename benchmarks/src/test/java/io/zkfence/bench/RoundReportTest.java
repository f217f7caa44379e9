package io.zkfence.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class RoundReportTest {

    @Test
    void aReportSurvivesItsLineWithTheWholeHistogram() {
        Histogram waits = Latency.newHistogram();
        for (long ns = 1_000; ns <= 50_000_000; ns *= 3) {
            Latency.record(waits, ns);
        }

        RoundReport back = RoundReport.parse(new RoundReport("zkfence-cohort", 1234, 5_000_000_000L, waits).line());

        assertThat(back.impl()).isEqualTo("zkfence-cohort");
        assertThat(back.grants()).isEqualTo(1234);
        assertThat(back.nanos()).isEqualTo(5_000_000_000L);
        assertThat(back.waits()).isEqualTo(waits);
        assertThat(back.waits().getValueAtPercentile(99)).isEqualTo(waits.getValueAtPercentile(99));
    }

    @Test
    void anEmptyHistogramTravelsToo() {
        RoundReport back = RoundReport.parse(new RoundReport("curator", 0, 1, Latency.newHistogram()).line());

        assertThat(back.waits().getTotalCount()).isZero();
    }

    @Test
    void aLineThatIsNoReportIsRejectedNamingIt() {
        assertThatThrownBy(() -> RoundReport.parse("READY 12"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("READY 12");
        assertThatThrownBy(() -> RoundReport.parse("DONE curator x 1 AAAA"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed");
        assertThatThrownBy(() -> RoundReport.parse("DONE curator 1 1 not-base64!"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

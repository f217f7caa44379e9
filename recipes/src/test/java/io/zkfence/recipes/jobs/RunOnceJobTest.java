package io.zkfence.recipes.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RunOnceJobTest {

    @Test
    void defaultsHoldNothingAndNeverMisfire() {
        RunOnceJob job = RunOnceJob.builder("nightly-report").build();
        assertThat(job.holdAtLeast()).isZero();
        assertThat(job.maxHold()).isEmpty();
        assertThat(job.misfireThreshold()).isEmpty();
    }

    @Test
    void anOccurrenceIsHeldUnderTheJobNameAtTheOccurrence() {
        RunOnceJob job = RunOnceJob.builder("nightly-report").build();
        assertThat(job.lockName("2025-06-01")).isEqualTo("nightly-report@2025-06-01");
        assertThat(job.lockName(Instant.parse("2025-06-01T02:00:00Z")))
                .isEqualTo("nightly-report@2025-06-01T02:00:00Z");
    }

    @Test
    void aBlankOrControlCharacterNameIsRejected() {
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> RunOnceJob.builder(" ").build()))
                .hasMessageContaining("blank");
        assertThrows(
                IllegalArgumentException.class, () -> RunOnceJob.builder(null).build());
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> RunOnceJob.builder("a\nb").build()))
                .hasMessageContaining("control");
    }

    @Test
    void holdsOutOfRangeAreRejectedNamingTheSettingAndJob() {
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> RunOnceJob.builder("j")
                                .holdAtLeast(Duration.ofSeconds(-1))
                                .build()))
                .hasMessageContaining("holdAtLeast")
                .hasMessageContaining("'j'");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> RunOnceJob.builder("j").maxHold(Duration.ZERO).build()))
                .hasMessageContaining("maxHold");
        assertThat(assertThrows(
                        IllegalArgumentException.class,
                        () -> RunOnceJob.builder("j")
                                .holdAtLeast(Duration.ofDays(2))
                                .build()))
                .hasMessageContaining("1 day");
    }

    @Test
    void maxHoldShorterThanHoldAtLeastIsRejected() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> RunOnceJob.builder("j")
                        .holdAtLeast(Duration.ofMinutes(5))
                        .maxHold(Duration.ofMinutes(1))
                        .build());
        assertThat(e).hasMessageContaining("maxHold").hasMessageContaining("holdAtLeast");
    }

    @Test
    void maxHoldWithoutASecondsMarginOverHoldAtLeastIsRejectedBecauseEveryRunWouldEndLost() {
        for (Duration atMost :
                new Duration[] {Duration.ofMinutes(5), Duration.ofMinutes(5).plusMillis(999)}) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> RunOnceJob.builder("j")
                            .holdAtLeast(Duration.ofMinutes(5))
                            .maxHold(atMost)
                            .build());
            assertThat(e)
                    .as("maxHold %s", atMost)
                    .hasMessageContaining("maxHold (" + atMost + ")")
                    .hasMessageContaining("at least 1 s longer than holdAtLeast (PT5M)")
                    .hasMessageContaining("LOST")
                    .hasMessageContaining("'j'");
        }
        RunOnceJob margin = RunOnceJob.builder("j")
                .holdAtLeast(Duration.ofMinutes(5))
                .maxHold(Duration.ofMinutes(5).plusSeconds(1))
                .build();
        assertThat(margin.maxHold()).contains(Duration.ofSeconds(301));
        // Without a hold-at-least the release follows the task at once: no margin needed.
        RunOnceJob noHold =
                RunOnceJob.builder("j").maxHold(Duration.ofMillis(100)).build();
        assertThat(noHold.maxHold()).contains(Duration.ofMillis(100));
    }

    @Test
    void aMisfireThresholdLongerThanTheHoldIsRejectedBecauseItWouldAllowASecondRun() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> RunOnceJob.builder("j")
                        .holdAtLeast(Duration.ofSeconds(10))
                        .misfireThreshold(Duration.ofSeconds(30))
                        .build());
        assertThat(e).hasMessageContaining("misfireThreshold").hasMessageContaining("run it again");
        assertThrows(
                IllegalArgumentException.class,
                () -> RunOnceJob.builder("j")
                        .holdAtLeast(Duration.ofSeconds(10))
                        .misfireThreshold(Duration.ZERO)
                        .build());
        RunOnceJob ok = RunOnceJob.builder("j")
                .holdAtLeast(Duration.ofSeconds(10))
                .misfireThreshold(Duration.ofSeconds(10))
                .build();
        assertThat(ok.misfireThreshold()).contains(Duration.ofSeconds(10));
    }
}

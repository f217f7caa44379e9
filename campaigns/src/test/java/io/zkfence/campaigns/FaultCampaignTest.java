package io.zkfence.campaigns;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short campaign CI runs (the long ones are {@code ./faults MINUTES} and {@code ./faults --cohort
 * MINUTES}): real worker JVMs, half of them in cohort mode, a fixed seed, faults of several kinds,
 * and the checker's verdict at the resources.
 */
class FaultCampaignTest {

    @TempDir
    Path out;

    @Test
    void aShortCampaignWithFaultsOfSeveralKindsEndsWithNoViolationAtTheResources() throws Exception {
        // Two of the four workers take the locks in cohort mode: both modes under the same faults.
        FaultCampaign.Outcome o =
                FaultCampaign.run(new FaultCampaign.Settings(Duration.ofSeconds(60), 42, 4, 2, 3, 2, out, 2));
        assertThat(o.check().violations()).isEmpty();
        assertThat(o.check().stalled())
                .as("workers without progress after the last fault")
                .isEmpty();
        assertThat(o.leftoverQueueNodes()).isZero();
        assertThat(o.faults().values().stream().mapToInt(Integer::intValue).sum())
                .as("faults injected")
                .isGreaterThanOrEqualTo(5);
        assertThat(o.faults()).hasSizeGreaterThanOrEqualTo(3);
        assertThat(o.check().rows()).as("committed writes").isPositive();
        assertThat(Files.readString(o.report())).contains("seed 42", "0 violations");
        assertThat(o.report().resolveSibling("report.json")).exists();
        assertThat(o.report().resolveSibling(CampaignReport.TIMELINE_PNG)).isNotEmptyFile();
        assertThat(o.recovery())
                .as("faults whose victim never wrote again")
                .allSatisfy(k -> assertThat(k.notRecovered()).isZero());
    }
}

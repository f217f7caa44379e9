package io.zkfence.campaigns.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short campaign against the lock service that CI runs (the long one is
 * {@code ./faults --service MINUTES}): three replicas as JVMs, three Java workers and a Python one
 * over HTTP, a fixed seed, faults of every kind the draw gives in 60 s, and the same checks as the
 * long run, each promise on its own.
 */
class ServiceCampaignTest {

    /** Kept when the test fails: the report, the logs and queues.json say what broke. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path out;

    @Test
    void aMinuteOfFaultsAgainstTheServiceBreaksNoPromise() throws Exception {
        ServiceOutcome o =
                ServiceCampaign.run(new ServiceCampaign.Settings(Duration.ofSeconds(60), 42, 3, 1, 2, 3, 3, 4, out));
        ServiceChecker.Findings f = o.findings();
        assertThat(f.pg().violations())
                .as("PostgreSQL: token order, lost or doubled updates, logs")
                .isEmpty();
        for (ServiceChecker.Promise p : ServiceChecker.Promise.values()) {
            assertThat(f.findings().stream().filter(x -> x.promise() == p).toList())
                    .as(p.title)
                    .isEmpty();
        }
        assertThat(f.countedOrphans()).as("leases no worker knows it holds").isEmpty();
        assertThat(f.leftover()).as("queue entries left at the end").isEmpty();
        assertThat(f.pg().stalled())
                .as("workers without a write after the last fault")
                .isEmpty();
        assertThat(f.recovery())
                .as("faults after which a victim never wrote again")
                .allSatisfy(k -> assertThat(k.notRecovered()).isZero());
        assertThat(o.faultCount()).as("faults injected").isGreaterThanOrEqualTo(10);
        assertThat(o.faults()).as("fault kinds").hasSizeGreaterThanOrEqualTo(5);
        assertThat(o.acceptedWrites())
                .as("accepted writes per worker, the Python worker's among them")
                .allSatisfy((worker, writes) -> assertThat(writes).as(worker).isPositive());
        assertThat(Files.readString(o.report())).contains("seed 42", "Every promise kept");
        assertThat(o.report().resolveSibling("report.json")).exists();
        assertThat(o.report().resolveSibling(ServiceReport.TIMELINE_PNG)).isNotEmptyFile();
    }
}

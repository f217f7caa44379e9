package io.zkfence.campaigns.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the clock-skew fault rests on, checked on a real replica: restarted under libfaketime, a
 * replica's JVM runs with its wall clock shifted by the offset (its leases' {@code expiresAt} say
 * so) and still serves, its timed waits intact (a waiting acquire runs out on time).
 */
class ReplicaClockTest {

    @TempDir
    Path dir;

    @Test
    void aReplicaRestartedUnderFaketimeAnswersWithItsClockShiftedAndStillTimesItsWaits() {
        Path libfaketime = HostTools.ensure();
        try (EmbeddedEnsemble zk = EmbeddedEnsemble.start();
                Replica replica = Replica.start("r0", zk, "/clock-test", dir, libfaketime)) {
            ServiceCalls calls = new ServiceCalls();
            assertThat(offset(calls, replica)).as("no skew").isBetween(-1_000L, 1_000L);

            replica.kill();
            replica.skew(5);
            replica.restart();

            assertThat(offset(calls, replica)).as("FAKETIME=+5s").isBetween(4_000L, 6_000L);
            // A wait of 1 s behind a holder: libfaketime shifts the monotonic clock by the same offset,
            // so the JVM's timed waits neither return at once nor hang.
            String key = ServiceCampaign.KEY_PREFIX + "wait";
            ServiceCalls.Answer holder = calls.acquire(
                            replica.directUrl(),
                            key,
                            "a",
                            UUID.randomUUID().toString(),
                            30_000,
                            false,
                            0,
                            Duration.ofSeconds(10))
                    .answer()
                    .join();
            assertThat(holder.status()).isEqualTo(200);
            long start = System.nanoTime();
            ServiceCalls.Answer waiter = calls.acquire(
                            replica.directUrl(),
                            key,
                            "b",
                            UUID.randomUUID().toString(),
                            30_000,
                            true,
                            1_000,
                            Duration.ofSeconds(20))
                    .answer()
                    .join();
            assertThat(waiter.status()).isEqualTo(409);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isBetween(Duration.ofMillis(900), Duration.ofSeconds(15));
        }
    }

    /** The replica's clock against this one's: a fresh grant's expiresAt minus its TTL, minus the call's midpoint. */
    private static long offset(ServiceCalls calls, Replica replica) {
        long before = System.currentTimeMillis();
        ServiceCalls.Answer a = calls.acquire(
                        replica.directUrl(),
                        ServiceCampaign.KEY_PREFIX + UUID.randomUUID(),
                        "o",
                        UUID.randomUUID().toString(),
                        10_000,
                        false,
                        0,
                        Duration.ofSeconds(10))
                .answer()
                .join();
        long after = System.currentTimeMillis();
        assertThat(a.status()).isEqualTo(200);
        return a.expiresAt() - 10_000 - (before + after) / 2;
    }
}

package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A renewal never moves a lease's expiry back under what an earlier answer told its holder: a
 * renewal through a replica whose clock is behind, or one that read its clock before another
 * renewal's write reached ZooKeeper (its answer lost, its request held by a proxy), keeps the later
 * expiry. The fault campaign met the second: a renewal answered through one replica, then an
 * earlier renewal applied late through another, and the lease ended 0.5 to 1.9 s before the first
 * renewal's answered validity.
 *
 * <p>And the answer never says more than the TTL by the answering replica's own clock: the expiry
 * kept was written by another clock, and counted on one behind it, it told holders more than the
 * TTL (a 5 s lease answered valid for 8.3 s through a replica 5 s behind, 14.1 s for a retried
 * acquire through one 4 s behind, in the 15-minute campaign at f9cb1f0), valid seconds after the
 * replica that wrote the expiry had ended the lease.
 */
class RenewNeverShortensTest {

    private static final LockKey KEY = LockKey.parse("inventory:sku-renewed");
    private static final String ROOT = "/renew";
    private static final Clock BEHIND = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-3));

    @Test
    void aRenewalThroughAReplicaWhoseClockIsBehindKeepsTheLaterExpiryAndAnswersTheTtlByItsOwnClock() {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(1).start();
                StoreUnderTest a = StoreUnderTest.connect(ensemble, ROOT);
                StoreUnderTest behind = replicaBehind(ensemble)) {
            LeaseGrant lease = a.acquire(KEY, "holder", 10_000);
            long answered = a.renew(KEY, lease, 10_000);

            long before = BEHIND.millis();
            long again = behind.renew(KEY, lease, 10_000);
            long after = BEHIND.millis();

            assertThat(a.queue(KEY).get(0).data().expiresAt()).isEqualTo(answered);
            assertThat(again).isBetween(before + 10_000, after + 10_000).isLessThan(answered);
        }
    }

    @Test
    void aRetriedAcquireThroughAReplicaWhoseClockIsBehindAnswersNoMoreThanTheTtlByItsOwnClock() {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(1).start();
                StoreUnderTest a = StoreUnderTest.connect(ensemble, ROOT);
                StoreUnderTest behind = replicaBehind(ensemble)) {
            LeaseGrant lease = a.acquire(KEY, "holder", 10_000, false, 0, "request-1");

            long before = BEHIND.millis();
            LeaseGrant again = behind.acquire(KEY, "holder", 10_000, false, 0, "request-1");
            long after = BEHIND.millis();

            assertThat(again.fencingToken()).isEqualTo(lease.fencingToken());
            assertThat(a.queue(KEY).get(0).data().expiresAt()).isEqualTo(lease.expiresAt());
            assertThat(again.expiresAt())
                    .isBetween(before + 10_000, after + 10_000)
                    .isLessThan(lease.expiresAt());
        }
    }

    @Test
    void aRenewalThatReadItsClockBeforeAnotherRenewalWroteKeepsTheOthersExpiry() {
        try (EmbeddedEnsemble ensemble = EmbeddedEnsemble.builder().servers(1).start();
                StoreUnderTest a = StoreUnderTest.connect(ensemble, ROOT);
                StoreUnderTest slow = StoreUnderTest.connect(ensemble, ROOT)) {
            LeaseGrant lease = a.acquire(KEY, "holder", 10_000);
            String entry = a.queue(KEY).get(0).name().node();
            AtomicBoolean once = new AtomicBoolean();
            AtomicLong answeredMeanwhile = new AtomicLong();
            slow.wire().injectFaults((kind, path) -> {
                // The slow renewal's read of the entry: its clock was read before it; another
                // renewal, with a longer TTL, is answered before the read reaches ZooKeeper.
                if (kind.equals("data") && path.endsWith("/" + entry) && once.compareAndSet(false, true)) {
                    answeredMeanwhile.set(a.renew(KEY, lease, 20_000));
                }
                return null;
            });

            long before = System.currentTimeMillis();
            long slowAnswer = slow.renew(KEY, lease, 10_000);
            long after = System.currentTimeMillis();

            assertThat(once).as("the other renewal ran inside the slow one").isTrue();
            assertThat(a.queue(KEY).get(0).data().expiresAt()).isEqualTo(answeredMeanwhile.get());
            // Its own answer is counted from its own clock's read, so ends no later than what it keeps.
            assertThat(slowAnswer)
                    .isBetween(before + 10_000, after + 10_000)
                    .isLessThanOrEqualTo(answeredMeanwhile.get());
        }
    }

    /** A replica whose clock runs 3 s behind, on the service's default settings. */
    private static StoreUnderTest replicaBehind(EmbeddedEnsemble ensemble) {
        return StoreUnderTest.connect(ensemble, ROOT, BEHIND, LeaseService.Settings.defaults(ROOT));
    }
}

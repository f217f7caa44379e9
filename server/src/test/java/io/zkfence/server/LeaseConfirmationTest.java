package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Duration;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A lease granted from the queue is answered without a write, valid for at most two thirds of the
 * granting replica's session timeout; it is then confirmed (its own expiry written), and a replica
 * that stops gracefully confirms it before its session closes, so the lease outlives the replica.
 */
class LeaseConfirmationTest {

    /** Long enough that an unconfirmed grant may last {@link #SHORT_TTL_MS}: 2/3 of it less the lag bound (5 s). */
    private static final int SESSION_MS = 15_000;

    private static final long SHORT_TTL_MS = 3_000;

    private EmbeddedEnsemble ensemble;
    private CuratorFramework grantingZk;
    private CuratorFramework otherZk;
    private StoreUnderTest granting;
    private StoreUnderTest other;
    private LockKey key;

    @BeforeEach
    void twoReplicas() {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
        grantingZk = client();
        otherZk = client();
        granting = new StoreUnderTest(grantingZk, "/confirm");
        other = new StoreUnderTest(otherZk, "/confirm");
        key = LockKey.parse("inventory:sku-" + UUID.randomUUID().toString().substring(0, 6));
    }

    @AfterEach
    void stop() {
        other.close();
        otherZk.close();
        if (grantingZk.getZookeeperClient().isConnected()) {
            granting.close();
            grantingZk.close();
        }
        ensemble.close();
    }

    @Test
    void aLeaseFromTheQueueWithAShortTtlIsAnsweredItsTtlWithoutAWriteAndConfirmedHalfwayThrough() {
        long released = System.currentTimeMillis();
        LeaseGrant next = grantedFromTheQueue(SHORT_TTL_MS);
        assertThat(next.expiresAt() - released)
                .as("the TTL asked for, counted from the read that showed it first")
                .isBetween(SHORT_TTL_MS - 1_000, SHORT_TTL_MS + 1_000);
        QueueEntry unconfirmed = other.queue(key).get(0);
        assertThat(unconfirmed.tiedToReplica()).as("answered without a write").isTrue();

        Awaitility.await()
                .atMost(Duration.ofSeconds(SHORT_TTL_MS / 1000 + 10))
                .until(() -> !other.queue(key).get(0).tiedToReplica());
        QueueEntry confirmed = other.queue(key).get(0);
        assertThat(confirmed.data().expiresAt())
                .as("never shorter than the answer")
                .isGreaterThanOrEqualTo(next.expiresAt());
        assertThat(confirmed.fencingToken()).isEqualTo(next.fencingToken());
    }

    @Test
    void aLeaseFromTheQueueWithATtlLongerThanAnUnconfirmedGrantMayLastIsConfirmedBeforeItIsAnswered() {
        long released = System.currentTimeMillis();
        LeaseGrant next = grantedFromTheQueue(60_000);

        assertThat(next.expiresAt() - released).isGreaterThan(55_000);
        QueueEntry holder = other.queue(key).get(0);
        assertThat(holder.tiedToReplica())
                .as("it stands alone: confirmed before the answer")
                .isFalse();
        assertThat(holder.data().expiresAt()).isGreaterThanOrEqualTo(next.expiresAt());
        assertThat(granting.service.unconfirmedLeases()).isZero();
    }

    @Test
    void aReplicaThatStopsGracefullyConfirmsItsLeasesBeforeItsSessionCloses() {
        LeaseGrant next = grantedFromTheQueue(SHORT_TTL_MS);
        assertThat(granting.service.unconfirmedLeases()).isEqualTo(1);

        granting.close();
        grantingZk.close();

        QueueEntry holder = other.queue(key).get(0);
        assertThat(holder.fencingToken()).isEqualTo(next.fencingToken());
        assertThat(holder.tiedToReplica()).isFalse();
        assertThat(other.renew(key, next, 60_000)).isGreaterThan(System.currentTimeMillis());
    }

    @Test
    void aLeaseReleasedThroughAnotherReplicaIsOnlyReadWhenItsConfirmationIsDue() {
        LeaseGrant next = grantedFromTheQueue(SHORT_TTL_MS);
        RequestCounter requests = new RequestCounter();
        assertThat(granting.service.unconfirmedLeases()).isEqualTo(1);
        granting.wire().injectFaults(requests);

        // Nothing on the granting replica watches this entry: it learns of the release only
        // when the confirmation is due.
        assertThat(other.release(key, next)).isTrue();
        Awaitility.await()
                .atMost(Duration.ofSeconds(SHORT_TTL_MS / 1000 + 10))
                .until(() -> granting.service.unconfirmedLeases() == 0);

        assertThat(requests.count("data")).as(requests.toString()).isEqualTo(1);
        assertThat(requests.total())
                .as("no write on the entry that went: " + requests)
                .isEqualTo(1);
    }

    /**
     * "first" holds through the other replica, "next" waits on the granting one, stopped where its
     * wait starts; "first" is released, and "next" goes on to its grant from the queue.
     */
    private LeaseGrant grantedFromTheQueue(long ttlMillis) {
        LeaseGrant first = other.acquire(key, "first", 60_000);
        Acquirer acquirer = granting.service.acquirer();
        AcquireCall call = acquirer.begin(
                new Acquirer.Request(key, "next", ttlMillis, true, 60_000, null), CallerPresence.UNWATCHED);
        assertThat(acquirer.proceed(call, false)).as("queued behind first").isNull();
        other.release(key, first);
        return acquirer.proceed(call, true);
    }

    private CuratorFramework client() {
        CuratorFramework zk = CuratorFrameworkFactory.newClient(
                ensemble.connectString(), SESSION_MS, 5_000, new ExponentialBackoffRetry(100, 3));
        zk.start();
        return zk;
    }
}

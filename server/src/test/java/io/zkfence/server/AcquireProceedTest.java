package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zkfence.testkit.EmbeddedEnsemble;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An acquire run on a thread that must not wait answers at once when it can, and otherwise stops
 * where its wait starts, its entry queued and its watch set; run again, it goes on from there.
 */
class AcquireProceedTest {

    private EmbeddedEnsemble ensemble;
    private CuratorFramework holderZk;
    private CuratorFramework waiterZk;
    private StoreUnderTest holderReplica;
    private StoreUnderTest waiterReplica;
    private Acquirer acquirer;
    private LockKey key;

    @BeforeEach
    void twoReplicas() {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
        holderZk = client();
        waiterZk = client();
        holderReplica = new StoreUnderTest(holderZk, "/proceed");
        waiterReplica = new StoreUnderTest(waiterZk, "/proceed");
        acquirer = waiterReplica.service.acquirer();
        key = LockKey.parse("inventory:sku-" + UUID.randomUUID().toString().substring(0, 6));
    }

    @AfterEach
    void stop() {
        waiterReplica.close();
        holderReplica.close();
        waiterZk.close();
        holderZk.close();
        ensemble.close();
    }

    @Test
    void aWaitingAcquireOfAFreeLockIsAnsweredWithoutWaiting() {
        AcquireCall call = acquirer.begin(waiting("first", 60_000), CallerPresence.UNWATCHED);

        LeaseGrant grant = acquirer.proceed(call, false);

        assertThat(grant).isNotNull();
        assertThat(grant.ownerId()).isEqualTo("first");
    }

    @Test
    void anAcquireThatMustWaitStopsQueuedAndGoesOnWhereItStopped() {
        LeaseGrant holder = holderReplica.acquire(key, "holder", 60_000);
        AcquireCall call = acquirer.begin(waiting("next", 60_000), CallerPresence.UNWATCHED);

        assertThat(acquirer.proceed(call, false))
                .as("stopped where the wait starts")
                .isNull();
        assertThat(holderReplica.queue(key)).hasSize(2);
        long queuedToken = holderReplica.queue(key).get(1).fencingToken();
        assertThat(holderReplica.release(key, holder)).isTrue();

        LeaseGrant grant = acquirer.proceed(call, true);

        assertThat(grant.ownerId()).isEqualTo("next");
        assertThat(grant.fencingToken())
                .as("the entry queued before it stopped")
                .isEqualTo(queuedToken);
        assertThat(holderReplica.queue(key)).hasSize(1);
    }

    @Test
    void aWaitThatRunsOutAfterItWentOnRemovesItsEntry() {
        holderReplica.acquire(key, "holder", 60_000);
        AcquireCall call = acquirer.begin(waiting("next", 300), CallerPresence.UNWATCHED);
        assertThat(acquirer.proceed(call, false)).isNull();

        assertThatThrownBy(() -> acquirer.proceed(call, true))
                .isInstanceOfSatisfying(
                        LockServiceException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.LOCK_ALREADY_HELD));
        assertThat(holderReplica.queue(key)).hasSize(1);
    }

    @Test
    void aHedgedAcquireThatGivesUpAsTheHolderLeavesAnswersTheGrantOfItsTwin() {
        LeaseGrant holder = holderReplica.acquire(key, "holder", 60_000);
        AtomicReference<LeaseGrant> twin = new AtomicReference<>();
        AtomicInteger multis = new AtomicInteger();
        waiterReplica.wire().injectFaults((kind, path) -> {
            if (kind.equals("multi") && multis.incrementAndGet() == 2) {
                // This replica read the holder first and is about to give up. Meanwhile the holder
                // leaves, and the same request, sent to the other replica too, finds its entry first.
                holderReplica.release(key, holder);
                twin.set(holderReplica.acquire(key, "next", 60_000, false, 0, "hedged"));
            }
            return null;
        });

        LeaseGrant grant = waiterReplica.acquire(key, "next", 60_000, false, 0, "hedged");

        assertThat(twin.get()).as("the other replica's answer").isNotNull();
        assertThat(grant.fencingToken()).isEqualTo(twin.get().fencingToken());
        assertThat(holderReplica.queue(key))
                .extracting(QueueEntry::fencingToken)
                .containsExactly(grant.fencingToken());
    }

    private Acquirer.Request waiting(String owner, long waitMillis) {
        return new Acquirer.Request(key, owner, 60_000, true, waitMillis, null);
    }

    private CuratorFramework client() {
        CuratorFramework zk =
                CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3));
        zk.start();
        return zk;
    }
}

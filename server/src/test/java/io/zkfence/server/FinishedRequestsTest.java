package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.lock.internal.CuratorZkGateway;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Finished-request records live for the retention, in buckets of that length, and are swept once
 * three buckets old: within the retention a late copy of a request is refused, after it the
 * record is gone.
 */
class FinishedRequestsTest {

    private static final long RETENTION = 60_000;

    private EmbeddedEnsemble ensemble;
    private CuratorFramework zk;
    private final AtomicLong now = new AtomicLong(1_800_000_000_000L);
    private FinishedRequests records;
    private ZkWire wire;

    @BeforeEach
    void recordsOnAControlledClock() throws Exception {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
        zk = CuratorFrameworkFactory.newClient(ensemble.connectString(), new ExponentialBackoffRetry(100, 3));
        zk.start();
        zk.create().forPath("/finished");
        wire = new ZkWire(new CuratorZkGateway(zk, ZooDefs.Ids.OPEN_ACL_UNSAFE), Scheduler.real());
        Clock clock = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(now.get());
            }
        };
        records = new FinishedRequests(wire, new ServicePaths("/finished"), RETENTION, clock);
        records.repair();
    }

    @AfterEach
    void stop() {
        zk.close();
        ensemble.close();
    }

    @Test
    void aRecordFailsTheCheckWithinTheRetentionAndIsSweptAfterIt() throws Exception {
        String lock = "/finished/ns/lock";
        String request = "q0123456789abcdef";
        wire.call(
                "recording",
                () -> wire.multi(List.of(records.record(lock, request, FinishedRequests.Outcome.RELEASED))));

        now.addAndGet(RETENTION - 1_000);
        records.prepare();
        assertThat(records.lookUp(lock, request))
                .map(FinishedRequests.Finished::outcome)
                .contains(FinishedRequests.Outcome.RELEASED);
        assertThat(refusedByCheck(lock, request)).as("within the retention").isTrue();

        now.addAndGet(3 * RETENTION);
        records.prepare();
        records.sweep();

        assertThat(records.lookUp(lock, request)).isEmpty();
        assertThat(refusedByCheck(lock, request)).isFalse();
        assertThat(zk.getChildren().forPath("/finished/_done"))
                .as("old buckets deleted")
                .allSatisfy(b -> assertThat(Long.parseLong(b.substring(1)))
                        .isGreaterThanOrEqualTo(Math.floorDiv(now.get(), RETENTION) - 3));
    }

    @Test
    void recordsOfOtherRequestsOrLocksDoNotFailTheCheck() throws Exception {
        wire.call(
                "recording",
                () -> wire.multi(List.of(
                        records.record("/finished/ns/lock", "q0123456789abcdef", FinishedRequests.Outcome.EXPIRED))));

        assertThat(refusedByCheck("/finished/ns/lock", "qfedcba9876543210")).isFalse();
        assertThat(refusedByCheck("/finished/ns/other", "q0123456789abcdef")).isFalse();
        assertThat(refusedByCheck("/finished/ns/lock", "q0123456789abcdef")).isTrue();
    }

    private boolean refusedByCheck(String lock, String request) throws Exception {
        try {
            wire.call("checking", () -> wire.multi(records.notFinished(lock, request)));
            return false;
        } catch (KeeperException.NodeExistsException exists) {
            return true;
        }
    }
}

package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.server.ReplicaFixture.Reply;
import java.util.UUID;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Failures answer as failures: a sync that fails is a 503, never a read from a server that may
 * lag; a forced release whose audit entry cannot be written evicts nobody; an error answer never
 * shows a lockToken.
 */
class FailurePathsTest extends TwoReplicasTestBase {

    private String key;

    @BeforeEach
    void freshKey() {
        key = "inventory:sku-" + UUID.randomUUID().toString().substring(0, 6);
    }

    @Test
    void aStatusReadWhoseSyncFailsAnswers503() {
        assertThat(a.post(key, "acquire", ServiceHttp.acquire("pod-1", 60_000, null))
                        .status())
                .isEqualTo(200);
        b.service.wire().injectFaults((kind, path) -> kind.equals("sync") ? KeeperException.Code.SYSTEMERROR : null);

        Reply status = b.get(key);

        assertThat(status.status()).isEqualTo(503);
        assertThat(status.body().get("error").asText()).isEqualTo("UNAVAILABLE");
    }

    @Test
    void aRenewThatMissesTheEntryAndCannotSyncAnswers503NotExpired() {
        Reply grant = a.post(key, "acquire", ServiceHttp.acquire("pod-1", 60_000, null));
        // As a server that lags behind the create would answer: no such entry; and the sync fails.
        b.service.wire().injectFaults((kind, path) -> switch (kind) {
            case "data" -> path.contains("/e-") ? KeeperException.Code.NONODE : null;
            case "sync" -> KeeperException.Code.SYSTEMERROR;
            default -> null;
        });

        Reply renew = b.post(key, "renew", ServiceHttp.renew(grant, 60_000));

        assertThat(renew.status()).isEqualTo(503);
        assertThat(renew.body().get("detail").asText())
                .doesNotContain(grant.body().get("lockToken").asText());
        b.service.wire().injectFaults(null);
        assertThat(b.post(key, "renew", ServiceHttp.renew(grant, 60_000)).status())
                .isEqualTo(200);
    }

    @Test
    void aForcedReleaseWhoseAuditEntryCannotBeWrittenEvictsNobody() throws Exception {
        Reply holder = a.post(key, "acquire", ServiceHttp.acquire("pod-1", 60_000, null));
        String audit = root + "/_audit";
        // The trail's znode replaced by an ephemeral one: no child can be created under it.
        a.zk.delete().deletingChildrenIfNeeded().forPath(audit);
        a.zk.create().withMode(CreateMode.EPHEMERAL).forPath(audit);

        Reply forced = b.post(key, "force-release", "{\"reason\":\"hung\"}");

        assertThat(forced.status()).isEqualTo(503);
        Reply status = a.get(key);
        assertThat(status.body().get("ownerId").asText())
                .as("the holder was not evicted")
                .isEqualTo("pod-1");
        assertThat(status.body().get("fencingToken").asLong())
                .isEqualTo(holder.body().get("fencingToken").asLong());
    }
}

package io.zkfence.spring.boot;

import io.zkfence.lock.LockClient;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.ZooKeeper;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * UP while the lock client's ZooKeeper connection is up (its leases can be HELD); DOWN while it
 * is suspended or lost (every lease is SUSPECT or LOST, so no fenced write should start). Details:
 * the last connection state Curator reported, the session id and negotiated session timeout (the
 * lease TTL), the connect string and the lock root path. Reads local state only.
 */
final class ZkfenceHealthIndicator extends AbstractHealthIndicator implements ConnectionStateListener {

    private final CuratorFramework curator;
    private final LockClient client;
    private final AtomicReference<ConnectionState> last = new AtomicReference<>();

    ZkfenceHealthIndicator(CuratorFramework curator, LockClient client) {
        super("ZooKeeper health check failed");
        this.curator = curator;
        this.client = client;
        curator.getConnectionStateListenable().addListener(this);
    }

    @Override
    public void stateChanged(CuratorFramework ignored, ConnectionState newState) {
        last.set(newState);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        boolean connected = curator.getZookeeperClient().isConnected();
        ConnectionState state = last.get();
        if (connected && (state == null || state.isConnected())) {
            builder.up();
        } else {
            builder.down();
        }
        builder.withDetail(
                        "connectionState", state == null ? (connected ? "CONNECTED" : "NOT_CONNECTED") : state.name())
                .withDetail("connectString", curator.getZookeeperClient().getCurrentConnectionString())
                .withDetail("rootPath", client.config().rootPath());
        ZooKeeper zk = curator.getZookeeperClient().getZooKeeper();
        if (connected) {
            builder.withDetail("sessionId", "0x" + Long.toHexString(zk.getSessionId()))
                    .withDetail("sessionTimeoutMs", zk.getSessionTimeout());
        }
    }
}

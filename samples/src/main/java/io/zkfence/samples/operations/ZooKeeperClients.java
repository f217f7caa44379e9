package io.zkfence.samples.operations;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.lock.LockStats;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * Production set-ups of the ZooKeeper connection behind a {@link LockClient}: authentication
 * with ACLs, TLS, and the counters to export. Quoted by docs/operations.md.
 */
public final class ZooKeeperClients {

    private ZooKeeperClients() {}

    // snippet:acl
    /** A Curator client authenticated as {@code user} with ZooKeeper's digest scheme. */
    public static CuratorFramework authenticated(String connectString, String user, String password) {
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(15_000) // the lease TTL; see "Choosing the session timeout"
                .authorization("digest", (user + ":" + password).getBytes(StandardCharsets.UTF_8))
                .retryPolicy(LockClient.defaultRetryPolicy())
                .build();
        curator.start();
        return curator;
    }

    /** Locks whose znodes only clients authenticated as the same user can read, change or delete. */
    public static LockClient lockClient(CuratorFramework authenticated) {
        return LockClient.create(
                authenticated,
                LockClientConfig.builder()
                        .rootPath("/orders/locks")
                        .acl(ZooDefs.Ids.CREATOR_ALL_ACL) // root path, lock znodes and queue nodes
                        .build());
    }
    // end:acl

    // snippet:tls
    /** A Curator client that talks TLS to the servers' secureClientPort, presenting a client certificate. */
    public static CuratorFramework overTls(String connectString, Path keyStore, Path trustStore, String password) {
        ZKClientConfig tls = new ZKClientConfig();
        tls.setProperty("zookeeper.client.secure", "true");
        tls.setProperty("zookeeper.clientCnxnSocket", "org.apache.zookeeper.ClientCnxnSocketNetty"); // TLS needs Netty
        tls.setProperty("zookeeper.ssl.keyStore.location", keyStore.toString()); // our certificate
        tls.setProperty("zookeeper.ssl.keyStore.password", password);
        tls.setProperty("zookeeper.ssl.trustStore.location", trustStore.toString()); // who signed the servers'
        tls.setProperty("zookeeper.ssl.trustStore.password", password);
        CuratorFramework curator = CuratorFrameworkFactory.builder()
                .connectString(connectString) // e.g. "zk1:2281,zk2:2281,zk3:2281"
                .zkClientConfig(tls)
                .sessionTimeoutMs(15_000)
                .retryPolicy(LockClient.defaultRetryPolicy())
                .build();
        curator.start();
        return curator;
    }
    // end:tls

    // snippet:metrics
    /** The client's counters under metric names, for a gauge or counter per entry (e.g. every 10 s). */
    public static Map<String, Long> metrics(LockClient locks) {
        LockStats s = locks.stats();
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("zkfence.grants", s.grants());
        m.put("zkfence.releases", s.releases());
        m.put("zkfence.leases.lost", s.leasesLost()); // alert when it grows: holders are losing sessions
        m.put("zkfence.creates", s.creates()); // above grants: retries after connection loss
        m.put("zkfence.children.reads", s.childrenReads());
        m.put("zkfence.wakeups", s.wakeUps()); // one per contended release
        return m;
    }
    // end:metrics
}

package io.zkfence.server;

import java.time.Clock;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs;

/**
 * One replica of the lock service run inside another program (integration tests, benchmarks) on
 * a ZooKeeper client the caller owns, without authentication, on a free port of 127.0.0.1. The
 * same service as {@code ./zkfence-server --no-auth}.
 */
public final class EmbeddedServer implements AutoCloseable {

    private final LeaseService service;
    private final LockHttpServer http;

    private EmbeddedServer(LeaseService service, LockHttpServer http) {
        this.service = service;
        this.http = http;
    }

    /**
     * Starts a replica keeping its locks under {@code root}.
     *
     * @param zk   a started Curator client; closing the server does not close it
     * @param root the znode under which the service keeps its locks
     */
    public static EmbeddedServer start(CuratorFramework zk, String root) {
        Objects.requireNonNull(zk, "zk");
        Objects.requireNonNull(root, "root");
        LeaseService service = new LeaseService(
                        zk, ZooDefs.Ids.OPEN_ACL_UNSAFE, Clock.systemUTC(), LeaseService.Settings.defaults(root))
                .start();
        LockHttpServer http = new LockHttpServer(
                service,
                ServerSettings.local(ApiKeys.open()),
                () -> zk.getZookeeperClient().isConnected());
        http.start();
        return new EmbeddedServer(service, http);
    }

    /** The HTTP port it listens on (127.0.0.1). */
    public int port() {
        return http.port();
    }

    /** Stops the HTTP server, then confirms the leases it granted that are not confirmed yet. */
    @Override
    public void close() {
        http.close();
        service.close();
    }
}

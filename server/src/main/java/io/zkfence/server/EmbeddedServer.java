package io.zkfence.server;

import java.time.Clock;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;

/**
 * One replica of the lock service run inside another program (integration tests, benchmarks) on
 * a ZooKeeper client the caller owns, without authentication, on a free port of 127.0.0.1. The
 * same service as {@code ./zkfence-server --no-auth}.
 */
public final class EmbeddedServer implements AutoCloseable {

    private final LockHttpServer http;

    private EmbeddedServer(LockHttpServer http) {
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
        LockHttpServer http = new LockHttpServer(
                new LeaseStore(zk, root, Clock.systemUTC(), AuditTrail.DEFAULT_RETENTION),
                ServerSettings.local(ApiKeys.open()),
                () -> zk.getZookeeperClient().isConnected());
        http.start();
        return new EmbeddedServer(http);
    }

    /** The HTTP port it listens on (127.0.0.1). */
    public int port() {
        return http.port();
    }

    /** Stops the HTTP server. */
    @Override
    public void close() {
        http.close();
    }
}

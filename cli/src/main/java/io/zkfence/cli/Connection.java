package io.zkfence.cli;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The connection flags every command shares, as the demo's: where ZooKeeper is, the lock root,
 * and the identity to authenticate as. TLS is ZooKeeper's own client configuration: pass
 * {@code -Dzookeeper.client.secure=true} and the {@code zookeeper.ssl.*} properties through
 * {@code JAVA_TOOL_OPTIONS}.
 */
final class Connection {

    @Option(
            scope = ScopeType.INHERIT,
            names = "--zookeeper",
            defaultValue = "${env:ZKFENCE_ZOOKEEPER:-localhost:2181}",
            description = "ZooKeeper connect string (env ZKFENCE_ZOOKEEPER). Default: ${DEFAULT-VALUE}")
    String zookeeper;

    @Option(
            scope = ScopeType.INHERIT,
            names = "--root",
            defaultValue = "/zkfence/locks",
            description = "Lock root path. Default: ${DEFAULT-VALUE}")
    String root;

    @Option(
            scope = ScopeType.INHERIT,
            names = "--digest",
            paramLabel = "<user:password>",
            description = "Authenticate with ZooKeeper's digest scheme (use it over TLS)")
    String digest;

    @Option(
            scope = ScopeType.INHERIT,
            names = "--owner",
            defaultValue = "${env:USER:-operator}",
            description = "Owner id recorded in the audit log as who did it. Default: ${DEFAULT-VALUE}")
    String owner;

    @Option(
            scope = ScopeType.INHERIT,
            names = "--connect-timeout",
            defaultValue = "10",
            description = "Seconds to wait for ZooKeeper. Default: ${DEFAULT-VALUE}")
    int connectSeconds;

    /** An open lock client; the caller closes it (which closes the connection). */
    Opened open() {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(zookeeper)
                .sessionTimeoutMs(15_000)
                .connectionTimeoutMs(connectSeconds * 1_000)
                // The library's policy for Curator's own operations, as the service and the starter use.
                .retryPolicy(LockClient.defaultRetryPolicy());
        if (digest != null) {
            b.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
        }
        CuratorFramework curator = b.build();
        curator.start();
        try {
            if (!curator.blockUntilConnected(connectSeconds, TimeUnit.SECONDS)) {
                curator.close();
                throw new CliException(
                        ExitCodes.UNAVAILABLE,
                        "no connection to ZooKeeper at " + zookeeper + " within " + connectSeconds + " s");
            }
        } catch (InterruptedException e) {
            curator.close();
            Thread.currentThread().interrupt();
            throw new CliException(ExitCodes.UNAVAILABLE, "interrupted connecting to ZooKeeper at " + zookeeper);
        }
        LockClient client;
        try {
            client = LockClient.create(
                    curator,
                    LockClientConfig.builder().rootPath(root).ownerId(owner).build());
        } catch (IllegalArgumentException e) {
            curator.close();
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        }
        return new Opened(curator, client);
    }

    /** The Curator client and the lock client on it, closed together. */
    record Opened(CuratorFramework curator, LockClient client) implements AutoCloseable {
        @Override
        public void close() {
            client.close();
            curator.close();
        }
    }
}

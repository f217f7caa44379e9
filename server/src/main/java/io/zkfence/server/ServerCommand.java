package io.zkfence.server;

import io.zkfence.command.CommandLogging;
import io.zkfence.lock.LockClient;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./zkfence-server}: one stateless replica of the lock service. Run as many as you like
 * against one ensemble. Every flag can also come from the environment (the name in its help) or
 * from an argument file ({@code ./zkfence-server @server.args}, one flag per line).
 */
@Command(
        name = "zkfence-server",
        mixinStandardHelpOptions = true,
        description = {
            "The fenced lock service over HTTP: stateless replicas over one ZooKeeper ensemble.",
            "Without --zookeeper it starts an embedded 3-server ensemble in this process (to try it out).",
            "Flags also come from the environment (names below) or from an argument file: @FILE."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:stopped", "1:could not start (ZooKeeper unreachable, port taken)", "2:bad arguments"})
public final class ServerCommand implements Callable<Integer> {

    @Option(
            names = "--zookeeper",
            defaultValue = "${env:ZKFENCE_ZOOKEEPER}",
            description =
                    "ZooKeeper connect string, e.g. zk1:2181,zk2:2181 (env ZKFENCE_ZOOKEEPER). Default: embedded.")
    String zookeeper;

    @Option(
            names = "--port",
            defaultValue = "${env:ZKFENCE_PORT:-8080}",
            description = "HTTP port, 0 for any free port (env ZKFENCE_PORT). Default: ${DEFAULT-VALUE}")
    int port;

    @Option(
            names = "--bind",
            defaultValue = "${env:ZKFENCE_BIND:-0.0.0.0}",
            description = "Address to listen on (env ZKFENCE_BIND). Default: ${DEFAULT-VALUE}")
    String bind;

    @Option(
            names = "--root",
            defaultValue = "${env:ZKFENCE_ROOT:-/zkfence/service}",
            description = "znode under which the service keeps its locks (env ZKFENCE_ROOT). Default: ${DEFAULT-VALUE}")
    String root;

    @Option(
            names = "--api-keys",
            defaultValue = "${env:ZKFENCE_API_KEYS}",
            description =
                    "JSON file of bearer API keys and their namespaces (env ZKFENCE_API_KEYS); see docs/server.md")
    Path apiKeys;

    @Option(
            names = "--no-auth",
            description = "Accept every caller as an admin in every namespace (no API keys). For"
                    + " trying it out; one of --api-keys or --no-auth is required.")
    boolean noAuth;

    @Option(
            names = "--max-ttl-ms",
            defaultValue = "${env:ZKFENCE_MAX_TTL_MS:-3600000}",
            description = "Longest lease TTL a request may ask for (env ZKFENCE_MAX_TTL_MS). Default: ${DEFAULT-VALUE}")
    long maxTtlMillis;

    @Option(
            names = "--max-wait-ms",
            defaultValue = "${env:ZKFENCE_MAX_WAIT_MS:-300000}",
            description = "Longest wait an acquire may ask for (env ZKFENCE_MAX_WAIT_MS). Default: ${DEFAULT-VALUE}")
    long maxWaitMillis;

    @Option(
            names = "--audit-retention",
            defaultValue = "${env:ZKFENCE_AUDIT_RETENTION:-1000}",
            description =
                    "Forced releases kept in the audit trail (env ZKFENCE_AUDIT_RETENTION). Default: ${DEFAULT-VALUE}")
    int auditRetention;

    @Option(
            names = "--max-waiters",
            defaultValue = "${env:ZKFENCE_MAX_WAITERS:-1000}",
            description = "Most acquires that may wait on one key; past it 429 TOO_MANY_WAITERS (env"
                    + " ZKFENCE_MAX_WAITERS). Default: ${DEFAULT-VALUE}")
    int maxWaiters;

    @Option(
            names = "--request-retention-ms",
            defaultValue = "${env:ZKFENCE_REQUEST_RETENTION_MS:-600000}",
            description =
                    "How long a finished request (by requestId) is remembered, so that a late copy of it is"
                            + " refused with 409 REQUEST_FINISHED (env ZKFENCE_REQUEST_RETENTION_MS). Default: ${DEFAULT-VALUE}")
    long requestRetentionMillis;

    @Option(
            names = "--session-timeout-ms",
            defaultValue = "${env:ZKFENCE_SESSION_TIMEOUT_MS:-15000}",
            description = "The replica's ZooKeeper session timeout: how soon the waiters of a crashed replica stop"
                    + " blocking their keys (env ZKFENCE_SESSION_TIMEOUT_MS). Default: ${DEFAULT-VALUE}")
    int sessionTimeoutMillis;

    @Option(
            names = "--zookeeper-lag-bound-ms",
            defaultValue = "${env:ZKFENCE_ZOOKEEPER_LAG_BOUND_MS:-10000}",
            description = "How long a ZooKeeper server cut off from its leader may go on answering reads: the"
                    + " ensemble's syncLimit x tickTime (10000 for ZooKeeper's sample configuration, syncLimit 5,"
                    + " tickTime 2000). A lease granted from the queue is answered without a write only while"
                    + " 2/3 of the session timeout less this bound covers it; otherwise it is confirmed first"
                    + " (env ZKFENCE_ZOOKEEPER_LAG_BOUND_MS). Default: ${DEFAULT-VALUE}")
    long lagBoundMillis;

    @Option(
            names = "--idle-timeout-ms",
            defaultValue = "${env:ZKFENCE_IDLE_TIMEOUT_MS:-30000}",
            description = "How long an HTTP connection may sit idle between requests (env ZKFENCE_IDLE_TIMEOUT_MS);"
                    + " a waiting acquire keeps its own connection open for its wait. Default: ${DEFAULT-VALUE}")
    long idleTimeoutMillis;

    @Option(
            names = "--warm-up-cycles",
            defaultValue = "${env:ZKFENCE_WARM_UP_CYCLES:-1000}",
            description = "Acquire + release cycles the replica runs on a lock of its own (namespace "
                    + WarmUp.NAMESPACE + ") through its own port before /health/ready answers UP, so that clients"
                    + " meet compiled code; 0: none (env ZKFENCE_WARM_UP_CYCLES). Default: ${DEFAULT-VALUE}")
    int warmUpCycles;

    @Option(
            names = "--digest",
            paramLabel = "<user:password>",
            defaultValue = "${env:ZKFENCE_ZK_DIGEST}",
            description = "Authenticate with ZooKeeper's digest scheme and create every znode readable and writable by"
                    + " that identity only (env ZKFENCE_ZK_DIGEST; use ZooKeeper TLS with it)")
    String digest;

    @Option(
            names = "--tls-keystore",
            defaultValue = "${env:ZKFENCE_TLS_KEYSTORE}",
            description = "Serve HTTPS with this PKCS#12 or JKS key store (env ZKFENCE_TLS_KEYSTORE)")
    Path tlsKeyStore;

    @Option(
            names = "--tls-keystore-password",
            defaultValue = "${env:ZKFENCE_TLS_KEYSTORE_PASSWORD}",
            description = "The key store's password (env ZKFENCE_TLS_KEYSTORE_PASSWORD; prefer the environment)")
    String tlsKeyStorePassword;

    @Option(
            names = "--tls-cert",
            defaultValue = "${env:ZKFENCE_TLS_CERT}",
            description =
                    "Serve HTTPS with this PEM certificate chain, server certificate first (env ZKFENCE_TLS_CERT)")
    Path tlsCert;

    @Option(
            names = "--tls-key",
            defaultValue = "${env:ZKFENCE_TLS_KEY}",
            description = "The PEM PKCS#8 private key of --tls-cert (env ZKFENCE_TLS_KEY)")
    Path tlsKey;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line; exits the JVM with its code. */
    public static void main(String[] args) {
        // The commands' one logging setup: without it logback logs everything at DEBUG to the
        // console (Jetty alone wrote about 200 lines per request); --verbose asks for that.
        System.exit(CommandLogging.execute(() -> new CommandLine(new ServerCommand()), args));
    }

    private HttpTls tls() {
        if (tlsKeyStore != null && (tlsCert != null || tlsKey != null)) {
            throw new IllegalArgumentException("give either --tls-keystore or --tls-cert with --tls-key, not both");
        }
        if (tlsKeyStore != null) {
            return HttpTls.fromKeyStore(tlsKeyStore, tlsKeyStorePassword);
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together");
        }
        return tlsCert == null ? null : HttpTls.fromPem(tlsCert, tlsKey);
    }

    /**
     * The replica's ZooKeeper client: with {@code digest} ({@code user:password}) it authenticates
     * and every znode it creates carries {@code CREATOR_ALL_ACL}, so clients with other identities
     * can neither read nor change the service's leases. ZooKeeper TLS is ZooKeeper's own client
     * configuration ({@code -Dzookeeper.client.secure=true} and its key and trust store
     * properties, in {@code ZKFENCE_SERVER_JAVA_OPTS}).
     */
    static CuratorFramework zooKeeper(String connect, String digest) {
        return zooKeeper(connect, digest, 15_000);
    }

    /** {@link #zooKeeper(String, String)} with a session timeout. */
    static CuratorFramework zooKeeper(String connect, String digest, int sessionTimeoutMillis) {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(sessionTimeoutMillis)
                .connectionTimeoutMs(5_000)
                .retryPolicy(LockClient.defaultRetryPolicy());
        if (digest != null && !digest.isBlank()) {
            if (digest.indexOf(':') < 1) {
                throw new IllegalArgumentException("--digest (ZKFENCE_ZK_DIGEST) must be user:password");
            }
            b.authorization("digest", digest.getBytes(StandardCharsets.UTF_8)).aclProvider(new ACLProvider() {
                @Override
                public List<ACL> getDefaultAcl() {
                    return ZooDefs.Ids.CREATOR_ALL_ACL;
                }

                @Override
                public List<ACL> getAclForPath(String path) {
                    return ZooDefs.Ids.CREATOR_ALL_ACL;
                }
            });
        }
        return b.build();
    }

    /** The ACL the service's znodes get: creator-only with a digest identity, else open. */
    static List<ACL> acl(String digest) {
        return digest != null && !digest.isBlank() ? ZooDefs.Ids.CREATOR_ALL_ACL : ZooDefs.Ids.OPEN_ACL_UNSAFE;
    }

    @Override
    public Integer call() throws InterruptedException {
        ServerSettings settings;
        try {
            if (noAuth == (apiKeys != null)) {
                throw new IllegalArgumentException("give exactly one of --api-keys FILE or --no-auth");
            }
            if (digest != null && !digest.isBlank() && digest.indexOf(':') < 1) {
                throw new IllegalArgumentException("--digest (ZKFENCE_ZK_DIGEST) must be user:password");
            }
            if (auditRetention < 1) {
                throw new IllegalArgumentException(
                        "--audit-retention (ZKFENCE_AUDIT_RETENTION) must be at least 1, was " + auditRetention);
            }
            if (maxWaiters < 1) {
                throw new IllegalArgumentException(
                        "--max-waiters (ZKFENCE_MAX_WAITERS) must be at least 1, was " + maxWaiters);
            }
            if (requestRetentionMillis < 1_000) {
                throw new IllegalArgumentException("--request-retention-ms (ZKFENCE_REQUEST_RETENTION_MS) must be at"
                        + " least 1000, was " + requestRetentionMillis);
            }
            if (sessionTimeoutMillis < 2_000 || sessionTimeoutMillis > 120_000) {
                throw new IllegalArgumentException("--session-timeout-ms (ZKFENCE_SESSION_TIMEOUT_MS) must be from"
                        + " 2000 to 120000, was " + sessionTimeoutMillis);
            }
            if (lagBoundMillis < 0 || lagBoundMillis > 600_000) {
                throw new IllegalArgumentException("--zookeeper-lag-bound-ms (ZKFENCE_ZOOKEEPER_LAG_BOUND_MS) must be"
                        + " from 0 to 600000, was " + lagBoundMillis);
            }
            settings = new ServerSettings(
                    bind,
                    port,
                    maxTtlMillis,
                    maxWaitMillis,
                    idleTimeoutMillis,
                    noAuth ? ApiKeys.open() : ApiKeys.load(apiKeys),
                    tls(),
                    warmUpCycles);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "zkfence-server: " + e.getMessage(), e);
        }
        EmbeddedEnsemble embedded = null;
        String connect = zookeeper;
        if (connect == null || connect.isBlank()) {
            System.out.println(
                    "zkfence-server: starting an embedded 3-server ZooKeeper ensemble (pass --zookeeper for a"
                            + " real one)");
            embedded = EmbeddedEnsemble.start();
            connect = embedded.connectString();
        }
        CuratorFramework zk = zooKeeper(connect, digest, sessionTimeoutMillis);
        zk.start();
        if (!zk.blockUntilConnected(15, TimeUnit.SECONDS)) {
            zk.close();
            System.err.println("zkfence-server: no connection to ZooKeeper at " + connect + " within 15 s");
            return 1;
        }
        LeaseService service;
        try {
            service = new LeaseService(
                            zk,
                            acl(digest),
                            Clock.systemUTC(),
                            new LeaseService.Settings(
                                    root, auditRetention, requestRetentionMillis, maxWaiters, lagBoundMillis))
                    .start();
        } catch (LockServiceException e) {
            zk.close();
            System.err.println(
                    "zkfence-server: cannot prepare the service's znodes under " + root + ": " + e.getMessage());
            return 1;
        }
        LockHttpServer server = new LockHttpServer(
                service, settings, () -> zk.getZookeeperClient().isConnected());
        try {
            server.start();
        } catch (RuntimeException e) {
            service.close();
            zk.close();
            System.err.println("zkfence-server: cannot listen on " + bind + ":" + port + ": " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        EmbeddedEnsemble ensemble = embedded;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            // Confirms the leases granted here before the session (and this replica's marker) goes.
            service.close();
            zk.close();
            if (ensemble != null) {
                ensemble.close();
            }
            stopped.countDown();
        }));
        // Serving already (live, not ready): the warm-up goes through the port like a client.
        long warmUpStart = System.nanoTime();
        int warmedUp = server.warmUp();
        System.out.println(
                "zkfence-server: listening (" + (settings.tls() == null ? "HTTP" : "HTTPS") + ") on " + bind + ":"
                        + server.port() + ", locks under " + root
                        + " on " + connect + (noAuth ? " (no authentication: --no-auth)" : "")
                        + (warmedUp > 0
                                ? "; warmed up with " + warmedUp + " cycles in "
                                        + (System.nanoTime() - warmUpStart) / 1_000_000 + " ms"
                                : ""));
        stopped.await();
        return 0;
    }
}

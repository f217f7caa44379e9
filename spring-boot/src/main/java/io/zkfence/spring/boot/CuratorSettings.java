package io.zkfence.spring.boot;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.ClientCnxnSocketNetty;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;

/**
 * Builds and starts the {@code CuratorFramework} the starter owns: connect string, session and
 * connection timeouts, digest authentication and TLS from {@link ZkfenceProperties}; the same
 * retry policy as {@code LockClient.connect} ({@link LockClient#defaultRetryPolicy()}).
 */
final class CuratorSettings {

    private CuratorSettings() {}

    /** An unstarted client; every property is checked first, naming the one that is wrong. */
    static CuratorFramework build(ZkfenceProperties p, LockClientConfig config) {
        String connectString = p.getConnectString();
        if (connectString == null || connectString.isBlank()) {
            throw PropertyCheck.invalid("zkfence.connect-string", connectString, "must list at least one host:port");
        }
        PropertyCheck.check("zkfence.connect-string", connectString, () -> new ConnectStringParser(connectString));
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(Math.toIntExact(config.sessionTimeout().toMillis()))
                .connectionTimeoutMs(Math.toIntExact(config.connectionTimeout().toMillis()))
                .retryPolicy(LockClient.defaultRetryPolicy())
                .zkClientConfig(clientConfig(p.getTls()));
        ZkfenceProperties.Auth auth = p.getAuth();
        if (auth.getUsername() != null || auth.getPassword() != null) {
            if (auth.getUsername() == null
                    || auth.getUsername().isBlank()
                    || auth.getUsername().contains(":")) {
                throw PropertyCheck.invalid(
                        "zkfence.auth.username",
                        auth.getUsername(),
                        "must be set, not blank and without ':' when zkfence.auth.password is set");
            }
            if (auth.getPassword() == null) {
                throw PropertyCheck.invalid(
                        "zkfence.auth.password", "", "must be set when zkfence.auth.username is set");
            }
            b.authorization("digest", (auth.getUsername() + ":" + auth.getPassword()).getBytes(StandardCharsets.UTF_8));
        }
        return b.build();
    }

    /** ZooKeeper's client settings: the Netty socket and the ssl.* keys when TLS is on. */
    static ZKClientConfig clientConfig(ZkfenceProperties.Tls tls) {
        ZKClientConfig c = new ZKClientConfig();
        if (!tls.isEnabled()) {
            return c;
        }
        if (tls.getTrustStoreLocation() == null) {
            throw PropertyCheck.invalid(
                    "zkfence.tls.trust-store-location",
                    null,
                    "must be set when zkfence.tls.enabled is true (the servers' CA)");
        }
        c.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
        c.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, ClientCnxnSocketNetty.class.getName());
        try (ClientX509Util x509 = new ClientX509Util()) {
            setIfPresent(c, x509.getSslKeystoreLocationProperty(), tls.getKeyStoreLocation());
            setIfPresent(c, x509.getSslKeystorePasswdProperty(), tls.getKeyStorePassword());
            setIfPresent(c, x509.getSslKeystoreTypeProperty(), tls.getKeyStoreType());
            setIfPresent(c, x509.getSslTruststoreLocationProperty(), tls.getTrustStoreLocation());
            setIfPresent(c, x509.getSslTruststorePasswdProperty(), tls.getTrustStorePassword());
            setIfPresent(c, x509.getSslTruststoreTypeProperty(), tls.getTrustStoreType());
            c.setProperty(
                    x509.getSslHostnameVerificationEnabledProperty(), Boolean.toString(tls.isHostnameVerification()));
        }
        return c;
    }

    /**
     * Starts the client and waits up to the connection timeout for a session.
     *
     * @throws IllegalStateException naming the connect string and the timeout property
     */
    static CuratorFramework start(CuratorFramework curator, LockClientConfig config) {
        curator.start();
        long waitMs = config.connectionTimeout().toMillis();
        try {
            if (!curator.blockUntilConnected(Math.toIntExact(waitMs), TimeUnit.MILLISECONDS)) {
                curator.close();
                throw new IllegalStateException("could not connect to ZooKeeper at "
                        + curator.getZookeeperClient().getCurrentConnectionString()
                        + " (zkfence.connect-string) within " + waitMs
                        + " ms (zkfence.connection-timeout)");
            }
        } catch (InterruptedException e) {
            curator.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting to ZooKeeper (zkfence.connect-string)", e);
        }
        return curator;
    }

    private static void setIfPresent(ZKClientConfig c, String key, String value) {
        if (value != null) {
            c.setProperty(key, value);
        }
    }
}

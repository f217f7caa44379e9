package io.zkfence.lock;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.ACL;

/**
 * Settings of a {@link LockClient}. Immutable; built with {@link #builder()} and validated in
 * {@link Builder#build()}, which names the setting and its bound when a value is out of range.
 *
 * <table>
 * <caption>Settings</caption>
 * <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 * <tr><td>{@code rootPath}</td><td>{@code /zkfence/locks}</td><td>znode under which every lock
 *   lives (one child per lock name); a valid absolute ZooKeeper path outside {@code /zookeeper}</td></tr>
 * <tr><td>{@code ownerId}</td><td>{@code <pid>@<host>}</td><td>written into each queue node and
 *   shown by {@link LockClient#inspect}; 1–256 characters, no control characters</td></tr>
 * <tr><td>{@code acl}</td><td>open ({@code world:anyone}, all)</td><td>ACL of every znode the
 *   client creates: the root path's missing parts, the lock znodes and the queue nodes. With
 *   {@code ZooDefs.Ids.CREATOR_ALL_ACL} and an authenticated Curator client, only clients
 *   authenticated the same way can queue for, delete from or inspect the locks.</td></tr>
 * <tr><td>{@code operationTimeout}</td><td>10 s</td><td>how long bounded calls (inspect,
 *   try-acquire, the releases {@link LockClient#close()} waits for) wait for ZooKeeper before
 *   giving up; 1 ms to 10 min</td></tr>
 * <tr><td>{@code sessionTimeout}</td><td>15 s</td><td>only for {@link LockClient#connect}: the
 *   requested session timeout, i.e. the lease TTL; the servers clamp it to
 *   [2, 20] × tickTime. With your own {@code CuratorFramework} its setting applies.</td></tr>
 * <tr><td>{@code connectionTimeout}</td><td>10 s</td><td>only for {@link LockClient#connect}:
 *   how long to wait for the first connection</td></tr>
 * </table>
 */
public final class LockClientConfig {

    static final int MAX_OWNER_ID_LENGTH = 256;
    private static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);

    private final String rootPath;
    private final String ownerId;
    private final List<ACL> acl;
    private final Duration operationTimeout;
    private final Duration sessionTimeout;
    private final Duration connectionTimeout;

    private LockClientConfig(Builder b) {
        this.rootPath = b.rootPath;
        this.ownerId = b.ownerId;
        this.acl = List.copyOf(b.acl);
        this.operationTimeout = b.operationTimeout;
        this.sessionTimeout = b.sessionTimeout;
        this.connectionTimeout = b.connectionTimeout;
    }

    /** A builder with every default set. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults. */
    public static LockClientConfig defaults() {
        return builder().build();
    }

    public String rootPath() {
        return rootPath;
    }

    public String ownerId() {
        return ownerId;
    }

    public List<ACL> acl() {
        return acl;
    }

    public Duration operationTimeout() {
        return operationTimeout;
    }

    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    public Duration connectionTimeout() {
        return connectionTimeout;
    }

    @Override
    public String toString() {
        return "LockClientConfig{rootPath=" + rootPath + ", ownerId=" + ownerId + ", operationTimeout="
                + operationTimeout + ", sessionTimeout=" + sessionTimeout + ", connectionTimeout=" + connectionTimeout
                + "}";
    }

    /** Builds a {@link LockClientConfig}. Not thread-safe. */
    public static final class Builder {
        private String rootPath = "/zkfence/locks";
        private String ownerId = defaultOwnerId();
        private List<ACL> acl = ZooDefs.Ids.OPEN_ACL_UNSAFE;
        private Duration operationTimeout = Duration.ofSeconds(10);
        private Duration sessionTimeout = Duration.ofSeconds(15);
        private Duration connectionTimeout = Duration.ofSeconds(10);

        private Builder() {}

        public Builder rootPath(String rootPath) {
            this.rootPath = rootPath;
            return this;
        }

        public Builder ownerId(String ownerId) {
            this.ownerId = ownerId;
            return this;
        }

        public Builder acl(List<ACL> acl) {
            this.acl = acl;
            return this;
        }

        public Builder operationTimeout(Duration operationTimeout) {
            this.operationTimeout = operationTimeout;
            return this;
        }

        public Builder sessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = sessionTimeout;
            return this;
        }

        public Builder connectionTimeout(Duration connectionTimeout) {
            this.connectionTimeout = connectionTimeout;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the setting and the rule it breaks
         */
        public LockClientConfig build() {
            if (rootPath == null) {
                throw new IllegalArgumentException("rootPath must not be null");
            }
            try {
                PathUtils.validatePath(rootPath);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "rootPath \"" + rootPath + "\" is not a valid ZooKeeper path: " + e.getMessage(), e);
            }
            if (rootPath.equals("/zookeeper") || rootPath.startsWith("/zookeeper/")) {
                throw new IllegalArgumentException(
                        "rootPath \"" + rootPath + "\" is inside /zookeeper, which ZooKeeper reserves");
            }
            if (ownerId == null || ownerId.isBlank()) {
                throw new IllegalArgumentException("ownerId must not be null or blank");
            }
            if (ownerId.length() > MAX_OWNER_ID_LENGTH) {
                throw new IllegalArgumentException(
                        "ownerId must be at most " + MAX_OWNER_ID_LENGTH + " characters, was " + ownerId.length());
            }
            if (ownerId.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException(
                        "ownerId must not contain control characters: \"" + ownerId.strip() + "\"");
            }
            if (acl == null || acl.isEmpty()) {
                throw new IllegalArgumentException(
                        "acl must not be null or empty (use ZooDefs.Ids.OPEN_ACL_UNSAFE for open)");
            }
            checkTimeout("operationTimeout", operationTimeout);
            checkTimeout("sessionTimeout", sessionTimeout);
            checkTimeout("connectionTimeout", connectionTimeout);
            return new LockClientConfig(this);
        }

        private static void checkTimeout(String name, Duration value) {
            Objects.requireNonNull(value, name + " must not be null");
            if (value.compareTo(Duration.ofMillis(1)) < 0 || value.compareTo(MAX_TIMEOUT) > 0) {
                throw new IllegalArgumentException(
                        name + " must be between 1 ms and " + MAX_TIMEOUT.toMinutes() + " min, was " + value);
            }
        }

        private static String defaultOwnerId() {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "unknown-host";
            }
            return ManagementFactory.getRuntimeMXBean().getPid() + "@" + host;
        }
    }
}

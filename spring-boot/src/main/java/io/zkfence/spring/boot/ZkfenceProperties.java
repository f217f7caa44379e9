package io.zkfence.spring.boot;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code zkfence.*} settings of the auto-configured {@link io.zkfence.lock.LockClient}.
 * Unset values take lock-core's defaults (see {@link io.zkfence.lock.LockClientConfig}); a value
 * lock-core rejects fails start-up with a message naming the property. Nothing is configured
 * unless {@code zkfence.connect-string} is set (or the application has its own
 * {@code CuratorFramework} bean).
 */
@ConfigurationProperties(prefix = "zkfence")
public class ZkfenceProperties {

    /** Whether to auto-configure zkfence at all. */
    private boolean enabled = true;

    /** ZooKeeper servers, e.g. "zk1:2181,zk2:2181,zk3:2181" (an optional chroot suffix is allowed). */
    private String connectString;

    /** Znode under which every lock lives. Default "/zkfence/locks". */
    private String rootPath;

    /** Written into each queue node and shown by inspect(). Default: the host name (the pod name on Kubernetes). */
    private String ownerId;

    /** Requested ZooKeeper session timeout, i.e. the lease TTL; the servers clamp it to [2, 20] x tickTime. Default 15s. */
    private Duration sessionTimeout;

    /** How long start-up waits for the first connection to ZooKeeper. Default 10s. */
    private Duration connectionTimeout;

    /** How long bounded calls (inspect, try-acquire, release on close) wait for ZooKeeper. Default 10s. */
    private Duration operationTimeout;

    /** ACL of every znode the client creates: "open" (world:anyone) or "creator" (only clients authenticated as this one; needs zkfence.auth.*). */
    private AclMode acl = AclMode.OPEN;

    private final Auth auth = new Auth();

    private final Tls tls = new Tls();

    private final Jdbc jdbc = new Jdbc();

    private final S3 s3 = new S3();

    private final Redis redis = new Redis();

    private final AzureBlob azureBlob = new AzureBlob();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getConnectString() {
        return connectString;
    }

    public void setConnectString(String connectString) {
        this.connectString = connectString;
    }

    public String getRootPath() {
        return rootPath;
    }

    public void setRootPath(String rootPath) {
        this.rootPath = rootPath;
    }

    public String getOwnerId() {
        return ownerId;
    }

    public void setOwnerId(String ownerId) {
        this.ownerId = ownerId;
    }

    public Duration getSessionTimeout() {
        return sessionTimeout;
    }

    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    public Duration getConnectionTimeout() {
        return connectionTimeout;
    }

    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }

    public Duration getOperationTimeout() {
        return operationTimeout;
    }

    public void setOperationTimeout(Duration operationTimeout) {
        this.operationTimeout = operationTimeout;
    }

    public AclMode getAcl() {
        return acl;
    }

    public void setAcl(AclMode acl) {
        this.acl = acl;
    }

    public Auth getAuth() {
        return auth;
    }

    public Tls getTls() {
        return tls;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public S3 getS3() {
        return s3;
    }

    public Redis getRedis() {
        return redis;
    }

    public AzureBlob getAzureBlob() {
        return azureBlob;
    }

    /** Which ACL the client puts on the znodes it creates. */
    public enum AclMode {
        /** world:anyone, all permissions (ZooDefs.Ids.OPEN_ACL_UNSAFE). */
        OPEN,
        /** Only the creating identity (ZooDefs.Ids.CREATOR_ALL_ACL); needs zkfence.auth.username and password. */
        CREATOR
    }

    /** Digest authentication ("digest" scheme, user:password). */
    public static class Auth {

        /** Digest user name; set together with zkfence.auth.password. */
        private String username;

        /** Digest password; set together with zkfence.auth.username. */
        private String password;

        public String getUsername() {
            return username;
        }

        public void setUsername(String username) {
            this.username = username;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }
    }

    /** TLS to the ZooKeeper servers (their secureClientPort), through ZooKeeper's Netty client. */
    public static class Tls {

        /** Whether to connect with TLS. */
        private boolean enabled;

        /** Key store file (client certificate), for servers that require client authentication. */
        private String keyStoreLocation;

        /** Password of the key store. */
        private String keyStorePassword;

        /** Type of the key store: PKCS12, JKS or PEM. Default: from the file name. */
        private String keyStoreType;

        /** Trust store file with the servers' CA. */
        private String trustStoreLocation;

        /** Password of the trust store. */
        private String trustStorePassword;

        /** Type of the trust store: PKCS12, JKS or PEM. Default: from the file name. */
        private String trustStoreType;

        /** Whether the servers' certificates must match their host names. */
        private boolean hostnameVerification = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getKeyStoreLocation() {
            return keyStoreLocation;
        }

        public void setKeyStoreLocation(String keyStoreLocation) {
            this.keyStoreLocation = keyStoreLocation;
        }

        public String getKeyStorePassword() {
            return keyStorePassword;
        }

        public void setKeyStorePassword(String keyStorePassword) {
            this.keyStorePassword = keyStorePassword;
        }

        public String getKeyStoreType() {
            return keyStoreType;
        }

        public void setKeyStoreType(String keyStoreType) {
            this.keyStoreType = keyStoreType;
        }

        public String getTrustStoreLocation() {
            return trustStoreLocation;
        }

        public void setTrustStoreLocation(String trustStoreLocation) {
            this.trustStoreLocation = trustStoreLocation;
        }

        public String getTrustStorePassword() {
            return trustStorePassword;
        }

        public void setTrustStorePassword(String trustStorePassword) {
            this.trustStorePassword = trustStorePassword;
        }

        public String getTrustStoreType() {
            return trustStoreType;
        }

        public void setTrustStoreType(String trustStoreType) {
            this.trustStoreType = trustStoreType;
        }

        public boolean isHostnameVerification() {
            return hostnameVerification;
        }

        public void setHostnameVerification(boolean hostnameVerification) {
            this.hostnameVerification = hostnameVerification;
        }
    }

    /** A JdbcFence bean over the application's DataSource; configured when any zkfence.jdbc.* property is set. */
    public static class Jdbc {

        /** Database dialect: postgres, mariadb or h2. Default: detected from one connection at start-up. */
        private String dialect;

        /** Schema of the fence table. Default: the connection's. */
        private String schema;

        /** Fence table name. Default "zkfence_fence". */
        private String table;

        /** Key column. Default "resource_key". */
        private String keyColumn;

        /** Token column. Default "fence_token". */
        private String tokenColumn;

        /** Holder column. Default "holder". */
        private String holderColumn;

        /** Updated-at column. Default "updated_at". */
        private String updatedAtColumn;

        /** Label written into the holder column. Default: fencing-jdbc's (pid@host). */
        private String holderLabel;

        /** Whether to create the fence table at start-up if it is missing (off: create it with your migrations). */
        private boolean createIfMissing;

        public String getDialect() {
            return dialect;
        }

        public void setDialect(String dialect) {
            this.dialect = dialect;
        }

        public String getSchema() {
            return schema;
        }

        public void setSchema(String schema) {
            this.schema = schema;
        }

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public String getKeyColumn() {
            return keyColumn;
        }

        public void setKeyColumn(String keyColumn) {
            this.keyColumn = keyColumn;
        }

        public String getTokenColumn() {
            return tokenColumn;
        }

        public void setTokenColumn(String tokenColumn) {
            this.tokenColumn = tokenColumn;
        }

        public String getHolderColumn() {
            return holderColumn;
        }

        public void setHolderColumn(String holderColumn) {
            this.holderColumn = holderColumn;
        }

        public String getUpdatedAtColumn() {
            return updatedAtColumn;
        }

        public void setUpdatedAtColumn(String updatedAtColumn) {
            this.updatedAtColumn = updatedAtColumn;
        }

        public String getHolderLabel() {
            return holderLabel;
        }

        public void setHolderLabel(String holderLabel) {
            this.holderLabel = holderLabel;
        }

        public boolean isCreateIfMissing() {
            return createIfMissing;
        }

        public void setCreateIfMissing(boolean createIfMissing) {
            this.createIfMissing = createIfMissing;
        }
    }

    /** A FencedBucket bean over the application's S3Client; configured when any zkfence.s3.* property is set. */
    public static class S3 {

        /** Bucket the fenced writes go to (required once any zkfence.s3.* property is set). */
        private String bucket;

        /** User-metadata key holding the token on each object. Default "fence-token". */
        private String tokenMetadataKey;

        /** How often a write retries after losing a conditional-write race to an equal or older token. Default: fencing-s3's. */
        private Integer maxConflictRetries;

        /** First back-off between those retries. Default: fencing-s3's. */
        private Duration backoffBase;

        /** Longest back-off between those retries. Default: fencing-s3's. */
        private Duration backoffMax;

        /** Entries of the ETag cache. Default: fencing-s3's. */
        private Integer etagCacheSize;

        /** Whether to check at start-up that the store honours conditional writes (writes one object under the self-check prefix). */
        private boolean verifyOnStartup;

        public String getBucket() {
            return bucket;
        }

        public void setBucket(String bucket) {
            this.bucket = bucket;
        }

        public String getTokenMetadataKey() {
            return tokenMetadataKey;
        }

        public void setTokenMetadataKey(String tokenMetadataKey) {
            this.tokenMetadataKey = tokenMetadataKey;
        }

        public Integer getMaxConflictRetries() {
            return maxConflictRetries;
        }

        public void setMaxConflictRetries(Integer maxConflictRetries) {
            this.maxConflictRetries = maxConflictRetries;
        }

        public Duration getBackoffBase() {
            return backoffBase;
        }

        public void setBackoffBase(Duration backoffBase) {
            this.backoffBase = backoffBase;
        }

        public Duration getBackoffMax() {
            return backoffMax;
        }

        public void setBackoffMax(Duration backoffMax) {
            this.backoffMax = backoffMax;
        }

        public Integer getEtagCacheSize() {
            return etagCacheSize;
        }

        public void setEtagCacheSize(Integer etagCacheSize) {
            this.etagCacheSize = etagCacheSize;
        }

        public boolean isVerifyOnStartup() {
            return verifyOnStartup;
        }

        public void setVerifyOnStartup(boolean verifyOnStartup) {
            this.verifyOnStartup = verifyOnStartup;
        }
    }

    /**
     * A RedisFence bean; configured when any zkfence.redis.* property is set. It uses the
     * application's RedisConnector bean if there is one, else a Lettuce connection to
     * zkfence.redis.uri.
     */
    public static class Redis {

        /** Redis to connect to, e.g. "redis://localhost:6379" (required unless the application has a RedisConnector bean). */
        private String uri;

        /** Prefix of the fence's own keys. Default: fencing-redis's ("zkfence:"). */
        private String keyPrefix;

        /** What a fenced call does when the server restarted since its slot was seeded: refuse-until-reseeded (default) or trust-persistence. */
        private String restartPolicy;

        /** Whether the fence seeds by itself, with the token of a fresh grant of zkfence.redis.seed-lock, when it finds a slot unseeded or its server restarted (needs the LockClient). */
        private boolean autoSeed;

        /** The lock whose fresh grants give the auto-seed its tokens. */
        private String seedLock = "zkfence-redis-seed";

        public String getUri() {
            return uri;
        }

        public void setUri(String uri) {
            this.uri = uri;
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        public String getRestartPolicy() {
            return restartPolicy;
        }

        public void setRestartPolicy(String restartPolicy) {
            this.restartPolicy = restartPolicy;
        }

        public boolean isAutoSeed() {
            return autoSeed;
        }

        public void setAutoSeed(boolean autoSeed) {
            this.autoSeed = autoSeed;
        }

        public String getSeedLock() {
            return seedLock;
        }

        public void setSeedLock(String seedLock) {
            this.seedLock = seedLock;
        }
    }

    /** A FencedContainer bean over the application's BlobServiceClient; configured when any zkfence.azure-blob.* property is set. */
    public static class AzureBlob {

        /** Container the fenced writes go to (required once any zkfence.azure-blob.* property is set). */
        private String container;

        /** Metadata name holding the token on each blob. Default "fence_token". */
        private String tokenMetadataKey;

        /** How often a write retries after losing a conditional-write race to an equal or older token. Default: fencing-azure-blob's. */
        private Integer maxConflictRetries;

        /** First back-off between those retries. Default: fencing-azure-blob's. */
        private Duration backoffBase;

        /** Longest back-off between those retries. Default: fencing-azure-blob's. */
        private Duration backoffMax;

        /** Entries of the ETag cache. Default: fencing-azure-blob's. */
        private Integer etagCacheSize;

        /** Whether to check at start-up that the service honours conditional writes (writes and deletes a probe blob). */
        private boolean verifyOnStartup;

        public String getContainer() {
            return container;
        }

        public void setContainer(String container) {
            this.container = container;
        }

        public String getTokenMetadataKey() {
            return tokenMetadataKey;
        }

        public void setTokenMetadataKey(String tokenMetadataKey) {
            this.tokenMetadataKey = tokenMetadataKey;
        }

        public Integer getMaxConflictRetries() {
            return maxConflictRetries;
        }

        public void setMaxConflictRetries(Integer maxConflictRetries) {
            this.maxConflictRetries = maxConflictRetries;
        }

        public Duration getBackoffBase() {
            return backoffBase;
        }

        public void setBackoffBase(Duration backoffBase) {
            this.backoffBase = backoffBase;
        }

        public Duration getBackoffMax() {
            return backoffMax;
        }

        public void setBackoffMax(Duration backoffMax) {
            this.backoffMax = backoffMax;
        }

        public Integer getEtagCacheSize() {
            return etagCacheSize;
        }

        public void setEtagCacheSize(Integer etagCacheSize) {
            this.etagCacheSize = etagCacheSize;
        }

        public boolean isVerifyOnStartup() {
            return verifyOnStartup;
        }

        public void setVerifyOnStartup(boolean verifyOnStartup) {
            this.verifyOnStartup = verifyOnStartup;
        }
    }
}

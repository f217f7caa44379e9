package io.zkfence.spring.boot;

import io.zkfence.lock.LockClientConfig;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.function.UnaryOperator;
import org.apache.zookeeper.ZooDefs;

/**
 * Builds lock-core's {@link LockClientConfig} from {@link ZkfenceProperties}. Each set property is
 * first checked on its own with lock-core's rules, so a bad value fails naming its
 * {@code zkfence.*} key rather than lock-core's field name.
 */
final class LockClientSettings {

    private LockClientSettings() {}

    static LockClientConfig lockClientConfig(ZkfenceProperties p) {
        String ownerId = p.getOwnerId() != null ? p.getOwnerId() : hostName();
        check("zkfence.owner-id", ownerId, x -> x.ownerId(ownerId));
        LockClientConfig.Builder b = LockClientConfig.builder().ownerId(ownerId);
        if (p.getRootPath() != null) {
            check("zkfence.root-path", p.getRootPath(), x -> x.rootPath(p.getRootPath()));
            b.rootPath(p.getRootPath());
        }
        if (p.getSessionTimeout() != null) {
            check("zkfence.session-timeout", p.getSessionTimeout(), x -> x.sessionTimeout(p.getSessionTimeout()));
            b.sessionTimeout(p.getSessionTimeout());
        }
        if (p.getConnectionTimeout() != null) {
            check(
                    "zkfence.connection-timeout",
                    p.getConnectionTimeout(),
                    x -> x.connectionTimeout(p.getConnectionTimeout()));
            b.connectionTimeout(p.getConnectionTimeout());
        }
        if (p.getOperationTimeout() != null) {
            check(
                    "zkfence.operation-timeout",
                    p.getOperationTimeout(),
                    x -> x.operationTimeout(p.getOperationTimeout()));
            b.operationTimeout(p.getOperationTimeout());
        }
        if (p.getAcl() == ZkfenceProperties.AclMode.CREATOR) {
            if (p.getAuth().getUsername() == null) {
                throw PropertyCheck.invalid(
                        "zkfence.acl",
                        "creator",
                        "the creator ACL needs an authenticated client: set zkfence.auth.username and zkfence.auth.password");
            }
            b.acl(ZooDefs.Ids.CREATOR_ALL_ACL);
        }
        return b.build();
    }

    /** Builds a config with only {@code set} applied (and a fixed owner id): lock-core's rule for that one knob. */
    private static void check(String property, Object value, UnaryOperator<LockClientConfig.Builder> set) {
        PropertyCheck.check(
                property,
                value,
                () -> set.apply(LockClientConfig.builder().ownerId("check")).build());
    }

    /** The pod name on Kubernetes (HOSTNAME), else the host name the JVM resolves. */
    static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env.strip();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}

package io.zkfence.spring.boot;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The {@link LockClient}: on the auto-configured (or the application's own) {@code CuratorFramework},
 * with root path, owner id, operation timeout and ACL from {@code zkfence.*}. Closed on context
 * shutdown, which releases its leases before the connection closes.
 */
@AutoConfiguration(after = ZkfenceCuratorAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "zkfence.enabled", matchIfMissing = true)
@ConditionalOnBean(CuratorFramework.class)
@EnableConfigurationProperties(ZkfenceProperties.class)
public class ZkfenceAutoConfiguration {

    /** Creates the configuration class (Spring calls it). */
    public ZkfenceAutoConfiguration() {}

    /**
     * The lock client's settings from {@code zkfence.*}.
     *
     * @param properties the {@code zkfence.*} settings
     * @return the validated settings
     */
    @Bean
    @ConditionalOnMissingBean(LockClientConfig.class)
    public LockClientConfig zkfenceLockClientConfig(ZkfenceProperties properties) {
        return LockClientSettings.lockClientConfig(properties);
    }

    /**
     * The lock client.
     *
     * @param curator the ZooKeeper connection
     * @param config  the settings
     * @return the client, closed with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockClient.class)
    public LockClient zkfenceLockClient(CuratorFramework curator, LockClientConfig config) {
        return LockClient.create(curator, config);
    }
}

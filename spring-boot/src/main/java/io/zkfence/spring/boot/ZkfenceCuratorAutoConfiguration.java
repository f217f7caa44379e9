package io.zkfence.spring.boot;

import org.apache.curator.framework.CuratorFramework;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The ZooKeeper connection: a started {@code CuratorFramework} from {@code zkfence.*}, when
 * {@code zkfence.connect-string} is set and the application has no {@code CuratorFramework} of its
 * own. Start-up waits for the first session (up to {@code zkfence.connection-timeout}) and fails
 * if there is none; the connection is closed on context shutdown, after the {@code LockClient}.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "zkfence.enabled", matchIfMissing = true)
@ConditionalOnProperty(prefix = "zkfence", name = "connect-string")
@EnableConfigurationProperties(ZkfenceProperties.class)
public class ZkfenceCuratorAutoConfiguration {

    /** Creates the configuration class (Spring calls it). */
    public ZkfenceCuratorAutoConfiguration() {}

    /**
     * The connection the {@code LockClient} runs on.
     *
     * @param properties the {@code zkfence.*} settings
     * @return a started, connected client
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(CuratorFramework.class)
    public CuratorFramework zkfenceCuratorFramework(ZkfenceProperties properties) {
        var config = LockClientSettings.lockClientConfig(properties);
        return CuratorSettings.start(CuratorSettings.build(properties, config), config);
    }
}

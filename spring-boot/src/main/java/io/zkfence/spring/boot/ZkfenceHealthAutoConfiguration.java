package io.zkfence.spring.boot;

import io.zkfence.lock.LockClient;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code zkfence} health indicator (Actuator's {@code /actuator/health/zkfence}), when
 * Spring Boot's health support is on the class path; {@code management.health.zkfence.enabled=false}
 * switches it off.
 */
@AutoConfiguration(after = ZkfenceAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean({CuratorFramework.class, LockClient.class})
@ConditionalOnEnabledHealthIndicator("zkfence")
public class ZkfenceHealthAutoConfiguration {

    /** Creates the configuration class (Spring calls it). */
    public ZkfenceHealthAutoConfiguration() {}

    /**
     * The indicator.
     *
     * @param curator the lock client's connection
     * @param client  the lock client
     * @return the indicator, named {@code zkfence}
     */
    @Bean(name = "zkfenceHealthIndicator")
    @ConditionalOnMissingBean(name = "zkfenceHealthIndicator")
    public HealthIndicator zkfenceHealthIndicator(CuratorFramework curator, LockClient client) {
        return new ZkfenceHealthIndicator(curator, client);
    }
}

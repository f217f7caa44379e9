package io.zkfence.spring.boot;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.zkfence.lock.LockClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The lock client's counters as Micrometer meters ({@code zkfence.lock.grants}, ...), when
 * Micrometer is on the class path: Spring Boot binds every {@link MeterBinder} bean to its
 * registries.
 */
@AutoConfiguration(after = ZkfenceAutoConfiguration.class)
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean(LockClient.class)
public class ZkfenceMetricsAutoConfiguration {

    /** Creates the configuration class (Spring calls it). */
    public ZkfenceMetricsAutoConfiguration() {}

    /**
     * The binder.
     *
     * @param client the lock client
     * @return a binder of its counters
     */
    @Bean(name = "zkfenceMeterBinder")
    @ConditionalOnMissingBean(name = "zkfenceMeterBinder")
    public MeterBinder zkfenceMeterBinder(LockClient client) {
        return new ZkfenceMetrics(client);
    }
}

package io.zkfence.spring.boot;

import io.zkfence.lock.LockClient;
import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.type.AnnotationMetadata;

/**
 * {@link FencedLocked @FencedLocked} methods: an advisor that runs each under its lock, taken
 * from the {@link LockClient} bean, and Spring's infrastructure auto-proxy creator if the
 * application has no proxy creator yet (Spring Boot's AOP auto-configuration, when present,
 * upgrades it and sets class-based proxies). Registered even with {@code zkfence.enabled=false}:
 * a bean with {@code @FencedLocked} methods and no {@code LockClient} then fails start-up instead
 * of running its methods unlocked.
 */
@AutoConfiguration(after = ZkfenceAutoConfiguration.class)
@Import(ZkfenceFencedLockedAutoConfiguration.ProxyCreatorRegistrar.class)
public class ZkfenceFencedLockedAutoConfiguration {

    /** Creates the configuration class (Spring calls it). */
    public ZkfenceFencedLockedAutoConfiguration() {}

    /**
     * The advisor. Static and with a lazy {@code LockClient}, so declaring it creates neither this
     * configuration nor the client early, before the other post-processors.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean(name = "zkfenceFencedLockedAdvisor")
    static Advisor zkfenceFencedLockedAdvisor(ObjectProvider<LockClient> locks, BeanFactory beanFactory) {
        return new FencedLockedAdvisor(locks, beanFactory);
    }

    /** Registers Spring's infrastructure auto-proxy creator unless a proxy creator is registered. */
    static final class ProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}

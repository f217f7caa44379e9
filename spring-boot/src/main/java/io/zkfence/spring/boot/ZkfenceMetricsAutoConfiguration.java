package io.zkfence.spring.boot;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcFenceMetrics;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientMetrics;
import io.zkfence.s3.FencedBucket;
import io.zkfence.s3.FencedBucketMetrics;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * zkfence's Micrometer meters when Micrometer is on the class path: Spring Boot binds every
 * {@link MeterBinder} bean to its registries. The lock client's {@link LockClientMetrics} (no
 * lock-name tag: names are unbounded; define your own {@code zkfenceMeterBinder} bean with
 * {@link LockClientMetrics#builder} to opt in), and the adapters' {@link JdbcFenceMetrics} and
 * {@link FencedBucketMetrics} when their beans exist. docs/operations.md ("Metrics") lists the meters.
 */
@AutoConfiguration(
        after = ZkfenceAutoConfiguration.class,
        afterName = {
            "io.zkfence.spring.boot.ZkfenceJdbcAutoConfiguration",
            "io.zkfence.spring.boot.ZkfenceS3AutoConfiguration"
        })
@ConditionalOnClass(MeterBinder.class)
public class ZkfenceMetricsAutoConfiguration {

    /** Creates the configuration class (Spring calls it). */
    public ZkfenceMetricsAutoConfiguration() {}

    /**
     * The lock client's binder.
     *
     * @param client the lock client
     * @return its meters
     */
    @Bean(name = "zkfenceMeterBinder")
    @ConditionalOnBean(LockClient.class)
    @ConditionalOnMissingBean(name = "zkfenceMeterBinder")
    public MeterBinder zkfenceMeterBinder(LockClient client) {
        return LockClientMetrics.of(client);
    }

    /** The JDBC fence's meters, when fencing-jdbc is used. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JdbcFence.class)
    @ConditionalOnBean(JdbcFence.class)
    public static class Jdbc {

        /** Creates the configuration class (Spring calls it). */
        public Jdbc() {}

        /**
         * The fence's binder.
         *
         * @param fence the JDBC fence
         * @return its meters
         */
        @Bean(name = "zkfenceJdbcMeterBinder")
        @ConditionalOnMissingBean(name = "zkfenceJdbcMeterBinder")
        public MeterBinder zkfenceJdbcMeterBinder(JdbcFence fence) {
            return JdbcFenceMetrics.of(fence);
        }
    }

    /** The S3 fence's meters, when fencing-s3 is used. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(FencedBucket.class)
    @ConditionalOnBean(FencedBucket.class)
    public static class S3 {

        /** Creates the configuration class (Spring calls it). */
        public S3() {}

        /**
         * The bucket's binder.
         *
         * @param bucket the fenced bucket
         * @return its meters
         */
        @Bean(name = "zkfenceS3MeterBinder")
        @ConditionalOnMissingBean(name = "zkfenceS3MeterBinder")
        public MeterBinder zkfenceS3MeterBinder(FencedBucket bucket) {
            return FencedBucketMetrics.of(bucket);
        }
    }
}

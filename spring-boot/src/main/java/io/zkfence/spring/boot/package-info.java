/**
 * Spring Boot auto-configuration of zkfence: a {@code LockClient} from {@code zkfence.*}
 * properties, a {@code JdbcFence} and a {@code FencedBucket} over the application's data source
 * and S3 client, a health indicator and Micrometer meters. See docs/spring.md.
 */
package io.zkfence.spring.boot;

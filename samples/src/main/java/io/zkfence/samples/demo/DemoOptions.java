package io.zkfence.samples.demo;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The command line, checked. A {@code null} service setting means "run that service embedded".
 *
 * @param workParent the existing folder in which the demo makes its one temporary folder
 */
record DemoOptions(
        String zookeeper,
        String zkRoot,
        Duration sessionTimeout,
        Duration maxFreeze,
        String jdbcUrl,
        String jdbcUser,
        String jdbcPassword,
        String s3Bucket,
        URI s3Endpoint,
        String s3Region,
        boolean s3PathStyle,
        boolean embeddedRedis,
        String redisUri,
        boolean embeddedAzureBlob,
        String azureContainer,
        Path workParent) {

    static final String EMBEDDED_BUCKET = "zkfence-demo";
    static final String EMBEDDED_CONTAINER = "zkfence-demo";

    boolean embeddedZookeeper() {
        return zookeeper == null;
    }

    boolean embeddedPostgres() {
        return jdbcUrl == null;
    }

    boolean embeddedS3() {
        return s3Bucket == null;
    }
}

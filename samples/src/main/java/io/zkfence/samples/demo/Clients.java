package io.zkfence.samples.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** The JDBC pool and S3 client settings shared by the demo and its pods. */
final class Clients {

    private Clients() {}

    static HikariDataSource pool(String poolName, String jdbcUrl, String user, String password) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(poolName);
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(Duration.ofSeconds(15).toMillis());
        return new HikariDataSource(config);
    }

    static S3Client s3(URI endpoint, String region, boolean pathStyle, AwsCredentialsProvider credentials) {
        var builder = S3Client.builder()
                .region(Region.of(region))
                .forcePathStyle(pathStyle)
                .credentialsProvider(credentials);
        if (endpoint != null) {
            builder.endpointOverride(endpoint);
        }
        return builder.build();
    }
}

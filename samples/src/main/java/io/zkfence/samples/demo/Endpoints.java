package io.zkfence.samples.demo;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/**
 * Where the three services are and how to log in: the embedded servers' addresses, or the real
 * infrastructure named on the command line. Pods get the non-secret parts as arguments and the
 * secrets (database password, S3 keys) in their environment, so they never show in {@code ps}.
 *
 * @param s3Endpoint {@code null} for AWS S3 itself (the SDK picks the regional endpoint)
 */
record Endpoints(
        String zookeeper,
        String zkRoot,
        Duration sessionTimeout,
        String jdbcUrl,
        String jdbcUser,
        String jdbcPassword,
        URI s3Endpoint,
        String bucket,
        String region,
        boolean pathStyle,
        AwsCredentials s3Credentials,
        ExtraStores extra) {

    static final String ENV_JDBC_PASSWORD = "ZKFENCE_DEMO_JDBC_PASSWORD";

    Endpoints {
        Objects.requireNonNull(zookeeper, "zookeeper");
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(s3Credentials, "s3Credentials");
    }

    /** The pod's command-line arguments (see {@link Pod}). */
    List<String> podArguments(String podName) {
        List<String> args = new ArrayList<>(List.of(
                "--name",
                podName,
                "--zookeeper",
                zookeeper,
                "--zk-root",
                zkRoot,
                "--session-timeout-ms",
                Long.toString(sessionTimeout.toMillis()),
                "--jdbc-url",
                jdbcUrl,
                "--s3-bucket",
                bucket,
                "--s3-region",
                region));
        if (jdbcUser != null) {
            args.addAll(List.of("--jdbc-user", jdbcUser));
        }
        if (s3Endpoint != null) {
            args.addAll(List.of("--s3-endpoint", s3Endpoint.toString()));
        }
        if (pathStyle) {
            args.add("--s3-path-style");
        }
        if (extra.redisUri() != null) {
            args.addAll(List.of("--redis-uri", extra.redisUri()));
        }
        if (extra.azureContainer() != null) {
            args.addAll(List.of("--azure-blob-container", extra.azureContainer()));
        }
        return args;
    }

    /** The secrets, as environment variables the pod (and the AWS SDK's default chain) read. */
    Map<String, String> podEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        if (jdbcPassword != null) {
            env.put(ENV_JDBC_PASSWORD, jdbcPassword);
        }
        env.put("AWS_ACCESS_KEY_ID", s3Credentials.accessKeyId());
        env.put("AWS_SECRET_ACCESS_KEY", s3Credentials.secretAccessKey());
        if (s3Credentials instanceof AwsSessionCredentials session) {
            env.put("AWS_SESSION_TOKEN", session.sessionToken());
        }
        if (extra.azureConnectionString() != null) {
            env.put(ExtraStores.ENV_AZURE_CONNECTION_STRING, extra.azureConnectionString());
        }
        return env;
    }
}

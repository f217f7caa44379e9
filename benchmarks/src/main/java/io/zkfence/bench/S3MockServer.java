package io.zkfence.bench;

import com.adobe.testing.s3mock.S3MockApplication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** Adobe S3Mock in the harness JVM on a random port, and SDK clients for it. */
final class S3MockServer implements AutoCloseable {

    private final S3MockApplication app;
    private final URI endpoint;

    private S3MockServer(S3MockApplication app, URI endpoint) {
        this.app = app;
        this.endpoint = endpoint;
    }

    // S3Mock 5 deprecates its in-process API; it is the one that runs here without Docker.
    @SuppressWarnings("deprecation")
    static S3MockServer start() {
        try {
            Path root = Files.createTempDirectory("zkfence-bench-s3mock");
            Map<String, Object> properties = new HashMap<>(); // S3Mock mutates the map it is given
            properties.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
            properties.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
            properties.put("com.adobe.testing.s3mock.store.root", root.toString());
            properties.put("com.adobe.testing.s3mock.store.retain-files-on-exit", false);
            properties.put(S3MockApplication.PROP_SILENT, true);
            S3MockApplication app = S3MockApplication.start(properties);
            return new S3MockServer(app, URI.create("http://127.0.0.1:" + app.getHttpPort()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start S3Mock", e);
        }
    }

    /** A client of this server (path-style, static credentials), with the given interceptors. */
    S3Client client(ExecutionInterceptor... interceptors) {
        return S3Client.builder()
                .endpointOverride(endpoint)
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
                .overrideConfiguration(c -> {
                    for (ExecutionInterceptor i : interceptors) {
                        c.addExecutionInterceptor(i);
                    }
                })
                .build();
    }

    @Override
    public void close() {
        app.stop();
    }
}

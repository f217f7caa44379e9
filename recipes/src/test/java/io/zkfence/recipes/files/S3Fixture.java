package io.zkfence.recipes.files;

import com.adobe.testing.s3mock.S3MockApplication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** One S3Mock for this module's tests, started on first use, stopped with the JVM. */
final class S3Fixture {

    private static S3Client client;

    private S3Fixture() {}

    // S3Mock 5 deprecates its in-process API; it is the one that runs here without Docker.
    @SuppressWarnings("deprecation")
    static synchronized S3Client client() {
        if (client == null) {
            Map<String, Object> properties = new HashMap<>(); // S3Mock writes into the map it is given
            try {
                properties.put("com.adobe.testing.s3mock.store.root", Files.createTempDirectory("recipes-s3mock").toString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            properties.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
            properties.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
            properties.put("com.adobe.testing.s3mock.store.retain-files-on-exit", false);
            properties.put(S3MockApplication.PROP_SILENT, true);
            System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
            S3MockApplication app = S3MockApplication.start(properties);
            Runtime.getRuntime().addShutdownHook(new Thread(app::stop));
            client = S3Client.builder().region(Region.US_EAST_1).forcePathStyle(true)
                    .endpointOverride(URI.create("http://127.0.0.1:" + app.getHttpPort()))
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("t", "t"))).build();
        }
        return client;
    }
}

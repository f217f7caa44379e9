package io.zkfence.testing;

import com.adobe.testing.s3mock.S3MockApplication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts one in-process Adobe S3Mock (a real S3 HTTP server, any credentials, path-style requests)
 * per test JVM, on a free port with its store in a temporary folder, and stops it when the test
 * plan ends. Test classes opt in with {@code @ExtendWith(S3MockServer.class)} and reach it through
 * {@link #endpoint()}.
 */
public final class S3MockServer implements BeforeAllCallback {

    private static volatile Running running;

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getRoot()
                .getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(S3MockServer.class, k -> start(), Running.class);
    }

    /** Where the server answers, {@code http://127.0.0.1:<port>}. */
    public static URI endpoint() {
        Running r = running;
        if (r == null) {
            throw new IllegalStateException(
                    "S3Mock is not running: annotate the test class with @ExtendWith(S3MockServer.class)");
        }
        return r.endpoint;
    }

    // S3Mock 5 marks its in-process API deprecated ("run the JAR in a separate JVM or the Docker
    // image"). In-process is the one that works here without Docker and starts in ~5 s; if a later
    // S3Mock drops it, start S3MockApplication's main in a child JVM on the test classpath instead.
    @SuppressWarnings("deprecation")
    private static Running start() {
        try {
            Path root = Files.createTempDirectory("zkfence-s3mock");
            Map<String, Object> properties = new HashMap<>(); // S3Mock mutates the map it is given
            properties.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
            properties.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
            properties.put("com.adobe.testing.s3mock.store.root", root.toString());
            properties.put("com.adobe.testing.s3mock.store.retain-files-on-exit", false);
            properties.put(S3MockApplication.PROP_SILENT, true);
            // S3Mock is a Spring Boot application: left alone, Spring Boot would re-initialise the
            // test JVM's logging as it starts, replacing the module's logback-test.xml settings.
            System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
            S3MockApplication app = S3MockApplication.start(properties);
            Running r = new Running(app, URI.create("http://127.0.0.1:" + app.getHttpPort()));
            running = r;
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Running(S3MockApplication app, URI endpoint) implements AutoCloseable {
        @Override
        public void close() {
            running = null;
            app.stop();
        }
    }
}

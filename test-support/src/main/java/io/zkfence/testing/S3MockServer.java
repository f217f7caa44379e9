package io.zkfence.testing;

import com.adobe.testing.s3mock.S3MockApplication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts one in-process Adobe S3Mock (a real S3 HTTP server, any credentials, path-style requests)
 * per test JVM, on a free port with its store in a temporary folder, and stops it when the test
 * plan ends. Test classes opt in with {@code @ExtendWith(S3MockServer.class)} and reach it through
 * {@link #endpoint()}.
 */
public final class S3MockServer implements BeforeAllCallback {

    /** Held so that the level set on it stays (java.util.logging keeps loggers weakly). */
    private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");

    private static volatile Started running;

    @Override
    public void beforeAll(ExtensionContext context) {
        context.getRoot()
                .getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(S3MockServer.class, k -> startShared(), Shared.class);
    }

    /** Where the server answers, {@code http://127.0.0.1:<port>}. */
    public static URI endpoint() {
        Started r = running;
        if (r == null) {
            throw new IllegalStateException(
                    "S3Mock is not running: annotate the test class with @ExtendWith(S3MockServer.class)");
        }
        return r.endpoint;
    }

    private static Shared startShared() {
        try {
            Started s = start(Files.createTempDirectory("zkfence-s3mock"));
            running = s;
            return new Shared(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts an S3Mock on a free port with its objects in {@code root}, deleted when it stops: the one
     * start-up of this extension and of {@link EmbeddedServers}.
     */
    // S3Mock 5 marks its in-process API deprecated ("run the JAR in a separate JVM or the Docker
    // image"). In-process is the one that works here without Docker and starts in ~5 s; if a later
    // S3Mock drops it, start S3MockApplication's main in a child JVM on the test classpath instead.
    @SuppressWarnings("deprecation")
    static Started start(Path root) {
        Map<String, Object> properties = new HashMap<>(); // S3Mock mutates the map it is given
        properties.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
        properties.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
        properties.put("com.adobe.testing.s3mock.store.root", root.toString());
        properties.put("com.adobe.testing.s3mock.store.retain-files-on-exit", false);
        properties.put(S3MockApplication.PROP_SILENT, true);
        properties.put("spring.main.banner-mode", "off");
        // S3Mock is a Spring Boot application: left alone, Spring Boot would re-initialise the JVM's
        // logging as it starts (replacing a test's logback-test.xml or a command's configuration) and
        // reset it when S3Mock stops. Its Tomcat logs through java.util.logging: warnings and worse.
        System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
        TOMCAT_LOG.setLevel(Level.WARNING);
        S3MockApplication app = S3MockApplication.start(properties);
        return new Started(app, URI.create("http://127.0.0.1:" + app.getHttpPort()));
    }

    /** A running S3Mock and where it answers; {@link #close()} stops it. */
    record Started(S3MockApplication app, URI endpoint) implements AutoCloseable {
        @Override
        @SuppressWarnings("deprecation")
        public void close() {
            app.stop();
        }
    }

    /** The test JVM's one server, stopped when the test plan ends. */
    private record Shared(Started server) implements AutoCloseable {
        @Override
        public void close() {
            running = null;
            server.close();
        }
    }
}

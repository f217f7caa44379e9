package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.testing.Ensemble;
import java.io.File;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Micrometer is optional: lock-core loads and runs on a class path without {@code io.micrometer}.
 * The test class path minus Micrometer's jars, in a class loader of its own (its parent is the
 * platform loader, so nothing leaks in from this one), runs {@link Probe} against the ensemble.
 */
class WithoutMicrometerTest {

    /** Runs inside the Micrometer-free loader: acquires, releases, reads stats and inspects. */
    public static final class Probe {
        private Probe() {}

        public static String run(String connectString, String root) {
            try (LockClient client = LockClient.connect(
                    connectString,
                    LockClientConfig.builder()
                            .rootPath(root)
                            .ownerId("no-micrometer")
                            .build())) {
                long token;
                try (Lease lease = client.lock("plain").acquire()) {
                    token = lease.token();
                }
                return token + " " + client.stats().grants() + " "
                        + client.stats().releases();
            }
        }
    }

    @Test
    void lockCoreAcquiresAndReleasesWithNoMicrometerOnTheClassPath() throws Exception {
        URL[] withoutMicrometer = Arrays.stream(testClassPath().split(File.pathSeparator))
                .filter(entry -> !entry.contains("micrometer"))
                .map(WithoutMicrometerTest::url)
                .toArray(URL[]::new);
        try (URLClassLoader loader = new URLClassLoader(withoutMicrometer, ClassLoader.getPlatformClassLoader())) {
            assertThrows(
                    ClassNotFoundException.class,
                    () -> Class.forName("io.micrometer.core.instrument.MeterRegistry", false, loader));
            Class<?> probe = Class.forName(Probe.class.getName(), true, loader);
            assertThat(probe.getClassLoader()).isSameAs(loader);
            Method run = probe.getMethod("run", String.class, String.class);
            String result = (String)
                    run.invoke(null, Ensemble.shared().connectString(), Ensemble.freshRoot("WithoutMicrometer"));
            String[] parts = result.split(" ");
            assertThat(Long.parseLong(parts[0])).isPositive();
            assertThat(parts[1]).isEqualTo("1");
            assertThat(parts[2]).isEqualTo("1");
            // The binder is the one class that needs Micrometer: it fails to load, nothing else does.
            assertThrows(
                    NoClassDefFoundError.class, () -> Class.forName(LockClientMetrics.class.getName(), true, loader));
        }
    }

    /** Surefire hands the real class path in this property (java.class.path may be its booter jar). */
    private static String testClassPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    private static URL url(String entry) {
        try {
            return new File(entry).toURI().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("class path entry " + entry, e);
        }
    }
}

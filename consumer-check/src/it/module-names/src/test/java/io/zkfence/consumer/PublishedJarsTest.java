package io.zkfence.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * Reads the jars of every published artifact as the build staged them (resolved through the BOM
 * onto this project's class path): each names its module, the names are distinct, and each comes
 * with sources and javadoc jars.
 */
class PublishedJarsTest {

    /** Artifact id to the Automatic-Module-Name it must carry (docs/versioning.md lists the same). */
    private static final Map<String, String> MODULE_NAMES = Map.ofEntries(
            Map.entry("zkfence-fencing-api", "io.zkfence.fencing"),
            Map.entry("zkfence-lock-core", "io.zkfence.lock"),
            Map.entry("zkfence-fencing-jdbc", "io.zkfence.jdbc"),
            Map.entry("zkfence-fencing-s3", "io.zkfence.s3"),
            Map.entry("zkfence-fencing-redis", "io.zkfence.redis"),
            Map.entry("zkfence-fencing-azure-blob", "io.zkfence.azure.blob"),
            Map.entry("zkfence-recipes", "io.zkfence.recipes"),
            Map.entry("zkfence-testkit", "io.zkfence.testkit"),
            Map.entry("zkfence-spring-boot-starter", "io.zkfence.spring.boot"),
            Map.entry("zkfence-shedlock", "io.zkfence.shedlock"),
            Map.entry("zkfence-spring-integration", "io.zkfence.spring.integration"),
            Map.entry("zkfence-curator", "io.zkfence.curator"));

    @Test
    void everyPublishedJarCarriesItsOwnAutomaticModuleName() throws IOException {
        Map<String, String> found = new TreeMap<>();
        for (Path jar : zkfenceJars().values()) {
            String name;
            try (JarFile file = new JarFile(jar.toFile())) {
                name = file.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
            }
            assertTrue(name != null && !name.isBlank(), jar + " has no Automatic-Module-Name");
            // What the module system itself derives from the jar must be that name.
            ModuleReference module = ModuleFinder.of(jar).findAll().iterator().next();
            assertEquals(name, module.descriptor().name(), jar.toString());
            String previous = found.put(name, jar.getFileName().toString());
            assertTrue(previous == null, name + " is the module name of both " + previous + " and " + jar);
        }
        Map<String, String> expected = new TreeMap<>();
        zkfenceJars().forEach((artifact, jar) -> expected.put(MODULE_NAMES.get(artifact), jar.getFileName().toString()));
        assertEquals(expected, found);
        assertEquals(new TreeMap<>(MODULE_NAMES).keySet(), zkfenceJars().keySet());
    }

    @Test
    void everyPublishedJarHasSourcesAndJavadocJarsBesideIt() throws IOException {
        Path staging = Path.of(System.getProperty("zkfence.staging"));
        String version = System.getProperty("zkfence.version");
        for (String artifact : MODULE_NAMES.keySet()) {
            Path dir = staging.resolve("io/zkfence").resolve(artifact).resolve(version);
            Path sources = dir.resolve(artifact + "-" + version + "-sources.jar");
            Path javadoc = dir.resolve(artifact + "-" + version + "-javadoc.jar");
            assertTrue(Files.isRegularFile(sources), "missing " + sources);
            assertTrue(Files.isRegularFile(javadoc), "missing " + javadoc);
            try (JarFile file = new JarFile(sources.toFile())) {
                assertTrue(file.stream().anyMatch(e -> e.getName().endsWith(".java")), sources + " holds no source");
            }
            try (JarFile file = new JarFile(javadoc.toFile())) {
                assertTrue(file.getEntry("index.html") != null, javadoc + " holds no index.html");
            }
        }
    }

    /** The zkfence jars on the test class path, by artifact id. */
    private static Map<String, Path> zkfenceJars() {
        Map<String, Path> jars = new TreeMap<>();
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of)
                .filter(p -> p.getFileName().toString().startsWith("zkfence-") && p.toString().endsWith(".jar"))
                .forEach(p -> jars.put(p.getParent().getParent().getFileName().toString(), p));
        return jars;
    }
}

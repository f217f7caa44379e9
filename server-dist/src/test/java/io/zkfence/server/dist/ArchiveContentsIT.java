package io.zkfence.server.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the archives hold: the layout, the zip matching the tar.gz, the example API keys valid JSON. */
class ArchiveContentsIT {

    @TempDir
    static Path emptyFolder;

    private static UnpackedDistribution dist;

    @BeforeAll
    static void unpack() {
        dist = UnpackedDistribution.unpack(emptyFolder);
    }

    @Test
    void theTarballHoldsTheCommandTheServerItsLibrariesAndTheOperatorsFiles() throws IOException {
        assertThat(dist.files())
                .contains(
                        "bin/zkfence-server",
                        "conf/server.args",
                        "conf/logback.xml",
                        "conf/api-keys.json",
                        "systemd/zkfence-server.service",
                        "k8s/deployment.yaml",
                        "k8s/service.yaml",
                        "k8s/pdb.yaml",
                        "k8s/Containerfile",
                        "README.md",
                        "LICENSE");
        assertThat(dist.files())
                .filteredOn(f -> f.startsWith("lib/"))
                .anyMatch(f -> f.matches("lib/zkfence-server-.+\\.jar"))
                .anyMatch(f -> f.matches("lib/zookeeper-3.+\\.jar"))
                .anyMatch(f -> f.matches("lib/logback-classic-.+\\.jar"))
                .allMatch(f -> f.endsWith(".jar"));
        assertThat(Files.getPosixFilePermissions(dist.script()))
                .contains(
                        PosixFilePermission.OWNER_EXECUTE,
                        PosixFilePermission.GROUP_EXECUTE,
                        PosixFilePermission.OTHERS_EXECUTE);
        assertThat(Files.readString(dist.resolve("k8s/deployment.yaml")))
                .as("the image tag is the version (filtered)")
                .doesNotContain("${");
    }

    @Test
    void theZipHoldsTheSameFilesWithTheSameModesAsTheTarball() throws IOException {
        Map<String, Integer> fromZip = new TreeMap<>();
        try (ZipFile zip = ZipFile.builder().setPath(UnpackedDistribution.zip()).get()) {
            for (ZipArchiveEntry e : Collections.list(zip.getEntries())) {
                if (!e.isDirectory()) {
                    fromZip.put(e.getName(), e.getUnixMode() & 0777);
                }
            }
        }
        Map<String, Integer> fromTar = new TreeMap<>();
        for (String f : dist.files()) {
            fromTar.put(UnpackedDistribution.topDirectory() + "/" + f, mode(dist.resolve(f)));
        }
        assertThat(fromZip).isEqualTo(fromTar);
        assertThat(fromZip.get(UnpackedDistribution.topDirectory() + "/bin/zkfence-server"))
                .isEqualTo(0755);
    }

    @Test
    void theExampleApiKeyFileHasAnAdminAndANamespacedKey() throws IOException {
        JsonNode keys = new ObjectMapper()
                .readTree(dist.resolve("conf/api-keys.json").toFile())
                .path("keys");
        assertThat(keys.isArray()).isTrue();
        List<JsonNode> all = new ArrayList<>();
        keys.forEach(all::add);
        assertThat(all).anyMatch(k -> k.path("admin").asBoolean());
        assertThat(all).anyMatch(k -> k.path("namespaces").size() > 0);
        assertThat(all)
                .as("every example key says it must be replaced")
                .allMatch(k -> k.path("key").asText().startsWith("CHANGE-ME-"));
    }

    private static int mode(Path file) throws IOException {
        int mode = 0;
        for (PosixFilePermission p : Files.getPosixFilePermissions(file)) {
            mode |= 1 << (8 - p.ordinal());
        }
        return mode;
    }
}

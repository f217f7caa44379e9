package io.zkfence.server.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive's Kubernetes manifests, read as YAML and checked for what a cluster would only find
 * out at run time: the probes on the paths the server serves, the Service and the budget selecting
 * the Deployment's pods, the API keys file inside the Secret's mount, a real ensemble configured.
 * (No API server here: the schema itself is not validated by this test.)
 */
class KubernetesManifestsIT {

    @TempDir
    static Path emptyFolder;

    private static Map<String, JsonNode> byKind;

    @BeforeAll
    static void read() throws IOException {
        UnpackedDistribution dist = UnpackedDistribution.unpack(emptyFolder);
        byKind = new HashMap<>();
        for (String file : List.of("k8s/deployment.yaml", "k8s/service.yaml", "k8s/pdb.yaml")) {
            try (MappingIterator<JsonNode> docs = new YAMLMapper()
                    .readerFor(JsonNode.class)
                    .readValues(dist.resolve(file).toFile())) {
                for (JsonNode doc : docs.readAll()) {
                    byKind.put(doc.path("kind").asText(), doc);
                }
            }
        }
        assertThat(byKind).containsOnlyKeys("Deployment", "Service", "PodDisruptionBudget");
    }

    @Test
    void theProbesUseTheServersHealthEndpointsOnTheNamedPort() {
        JsonNode container = container();
        assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/health/ready");
        assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/health/live");
        assertThat(container.at("/readinessProbe/httpGet/port").asText()).isEqualTo("http");
        assertThat(container.at("/livenessProbe/httpGet/port").asText()).isEqualTo("http");
        assertThat(container.at("/ports/0/name").asText()).isEqualTo("http");
        assertThat(container.at("/ports/0/containerPort").asInt())
                .isEqualTo(env(container).get("ZKFENCE_PORT").asInt());
    }

    @Test
    void theApiKeysComeFromASecretMountedWhereZkfenceApiKeysPoints() {
        JsonNode container = container();
        String keysFile = env(container).get("ZKFENCE_API_KEYS").asText();
        JsonNode mount = null;
        for (JsonNode m : container.path("volumeMounts")) {
            if (keysFile.startsWith(m.path("mountPath").asText() + "/")) {
                mount = m;
            }
        }
        assertThat(mount).as("a volume mounted above %s", keysFile).isNotNull();
        JsonNode volume = null;
        for (JsonNode v : podSpec().path("volumes")) {
            if (v.path("name").asText().equals(mount.path("name").asText())) {
                volume = v;
            }
        }
        assertThat(volume).isNotNull();
        assertThat(volume.at("/secret/secretName").asText()).isEqualTo("zkfence-server-api-keys");
        assertThat(keysFile).endsWith("/api-keys.json");
    }

    @Test
    void theReplicasShareOneConfiguredEnsembleAndNeverRunWithoutAuthentication() {
        JsonNode container = container();
        assertThat(env(container).get("ZKFENCE_ZOOKEEPER").asText())
                .as("without it every pod would start an embedded ensemble of its own")
                .isNotBlank();
        assertThat(container.toString()).doesNotContain("--no-auth");
        assertThat(byKind.get("Deployment").at("/spec/replicas").asInt()).isGreaterThan(1);
    }

    @Test
    void theServiceAndTheDisruptionBudgetSelectTheDeploymentsPods() {
        JsonNode labels = byKind.get("Deployment").at("/spec/template/metadata/labels");
        assertThat(byKind.get("Deployment").at("/spec/selector/matchLabels")).isEqualTo(labels);
        assertThat(byKind.get("PodDisruptionBudget").at("/spec/selector/matchLabels"))
                .isEqualTo(labels);
        assertThat(byKind.get("PodDisruptionBudget").path("apiVersion").asText())
                .isEqualTo("policy/v1");
        assertThat(byKind.get("Service").at("/spec/selector")).isEqualTo(labels);
        assertThat(byKind.get("Service").at("/spec/ports/0/targetPort").asText())
                .isEqualTo("http");
    }

    private static JsonNode podSpec() {
        return byKind.get("Deployment").at("/spec/template/spec");
    }

    private static JsonNode container() {
        List<JsonNode> containers = new ArrayList<>();
        podSpec().path("containers").forEach(containers::add);
        assertThat(containers).hasSize(1);
        return containers.get(0);
    }

    private static Map<String, JsonNode> env(JsonNode container) {
        Map<String, JsonNode> env = new HashMap<>();
        container.path("env").forEach(e -> env.put(e.path("name").asText(), e.path("value")));
        return env;
    }
}

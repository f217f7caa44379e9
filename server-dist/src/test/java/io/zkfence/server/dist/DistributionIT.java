package io.zkfence.server.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zkfence.server.dist.HttpApi.Answer;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built archive as an operator meets it: unpacked with {@code tar} into an empty folder, its
 * {@code bin/zkfence-server} run as a separate process against a ZooKeeper ensemble in this JVM,
 * with the example API key file it ships, and called over HTTP.
 */
class DistributionIT {

    /** conf/api-keys.json's keys, as shipped. */
    private static final String INVENTORY_KEY = "CHANGE-ME-inventory-service-key-0001";

    private static final String OPS_KEY = "CHANGE-ME-ops-admin-key-0003";

    /** A --root with a space: the script must hand every argument over intact. */
    private static final String ROOT = "/zkfence dist/service";

    @TempDir
    static Path emptyFolder;

    private static EmbeddedEnsemble ensemble;
    private static UnpackedDistribution dist;
    private static ScriptProcess replica;
    private static HttpApi api;

    @BeforeAll
    static void unpackAndStartAReplica() {
        ensemble = EmbeddedEnsemble.builder().servers(1).start();
        dist = UnpackedDistribution.unpack(emptyFolder);
        Map<String, String> env = new HashMap<>(ScriptProcess.onThisJava());
        env.put("ZKFENCE_ZOOKEEPER", ensemble.connectString()); // a flag's variable reaches the server
        env.put("ZKFENCE_SERVER_JAVA_OPTS", "-Xmx256m -Dzkfence.dist.it=on");
        replica = ScriptProcess.start(
                dist.script(),
                env,
                "--api-keys",
                dist.resolve("conf/api-keys.json").toString(),
                "--port",
                "0",
                "--bind",
                "127.0.0.1",
                "--root",
                ROOT);
        api = new HttpApi(replica.awaitListening());
    }

    @AfterAll
    static void stop() {
        if (replica != null) {
            replica.close();
        }
        if (ensemble != null) {
            ensemble.close();
        }
    }

    @Test
    void theUnpackedScriptGrantsAndReleasesALockOverHttpWithTheShippedApiKeys() {
        assertThat(api.get("/health/ready", null).status()).isEqualTo(200);
        String acquire = "/v1/locks/inventory-service:sku-42/acquire";

        assertThat(api.post(acquire, null, "{\"ownerId\":\"pod-7\",\"ttlMillis\":30000}")
                        .body()
                        .path("error")
                        .asText())
                .isEqualTo("UNAUTHORIZED");

        Answer grant = api.post(acquire, INVENTORY_KEY, "{\"ownerId\":\"pod-7\",\"ttlMillis\":30000}");
        assertThat(grant.status()).as(grant.text()).isEqualTo(200);
        long token = grant.body().path("fencingToken").asLong();
        assertThat(token).isPositive();

        Answer held = api.post(acquire, INVENTORY_KEY, "{\"ownerId\":\"pod-8\",\"ttlMillis\":30000}");
        assertThat(held.status()).isEqualTo(409);
        assertThat(held.body().path("currentOwner").asText()).isEqualTo("pod-7");

        Answer status = api.get("/v1/locks/inventory-service:sku-42", INVENTORY_KEY);
        assertThat(status.body().path("fencingToken").asLong()).isEqualTo(token);

        Answer released = api.post(
                "/v1/locks/inventory-service:sku-42/release",
                INVENTORY_KEY,
                "{\"ownerId\":\"pod-7\",\"lockToken\":\""
                        + grant.body().path("lockToken").asText() + "\"}");
        assertThat(released.status()).as(released.text()).isEqualTo(200);
        assertThat(released.body().path("wasHeld").asBoolean()).isTrue();
        assertThat(api.get("/v1/locks/inventory-service:sku-42", INVENTORY_KEY).status())
                .isEqualTo(404);

        Answer next = api.post(acquire, INVENTORY_KEY, "{\"ownerId\":\"pod-8\",\"ttlMillis\":30000}");
        assertThat(next.body().path("fencingToken").asLong()).isGreaterThan(token);
        api.post(
                "/v1/locks/inventory-service:sku-42/release",
                INVENTORY_KEY,
                "{\"ownerId\":\"pod-8\",\"lockToken\":\""
                        + next.body().path("lockToken").asText() + "\"}");
    }

    @Test
    void flagsEnvironmentAndJvmOptionsReachTheServerUnchanged() throws IOException {
        assertThat(replica.output())
                .as("the listening line names the --root given with a space in it and the ensemble from"
                        + " ZKFENCE_ZOOKEEPER")
                .anyMatch(l -> l.contains("locks under " + ROOT + " on " + ensemble.connectString()));
        List<String> java = replica.commandLine();
        assertThat(java.get(0)).startsWith(thisJavaHome());
        assertThat(java)
                .contains(
                        "-Dlogback.configurationFile=" + dist.resolve("conf/logback.xml"),
                        "-Xmx256m",
                        "-Dzkfence.dist.it=on",
                        "io.zkfence.server.ServerCommand",
                        ROOT);
        assertThat(replica.output()).as("conf/logback.xml logs at INFO").noneMatch(l -> l.contains(" DEBUG "));
    }

    @Test
    void everyServiceMeterTheGrafanaDashboardQueriesIsServedAtMetrics() throws IOException {
        Set<String> queried = dashboardServiceMetrics();
        assertThat(queried)
                .contains(
                        "zkfence_service_acquire_seconds_bucket",
                        "zkfence_service_waits_open",
                        "zkfence_service_waits_abandoned_total",
                        "zkfence_service_expiries_total",
                        "zkfence_service_renew_failures_total");

        // The meters with tags appear with their first event: a grant, a conflict, a renewal
        // refused, a forced release.
        String key = "/v1/locks/inventory-service:dashboard";
        Answer grant = api.post(key + "/acquire", INVENTORY_KEY, "{\"ownerId\":\"a\",\"ttlMillis\":30000}");
        assertThat(grant.status()).as(grant.text()).isEqualTo(200);
        assertThat(api.post(key + "/acquire", INVENTORY_KEY, "{\"ownerId\":\"b\",\"ttlMillis\":30000}")
                        .status())
                .isEqualTo(409);
        assertThat(api.post(key + "/force-release", OPS_KEY, "{\"reason\":\"dashboard check\"}")
                        .status())
                .isEqualTo(200);
        Answer renew = api.post(
                key + "/renew",
                INVENTORY_KEY,
                "{\"ownerId\":\"a\",\"ttlMillis\":30000,\"lockToken\":\""
                        + grant.body().path("lockToken").asText() + "\"}");
        assertThat(renew.status()).as(renew.text()).isIn(403, 409);

        Answer metrics = api.get("/metrics", null);
        assertThat(metrics.status()).isEqualTo(200);
        Set<String> served = new TreeSet<>();
        metrics.text()
                .lines()
                .filter(l -> l.startsWith("zkfence_service_"))
                .forEach(l -> served.add(l.split("[{ ]", 2)[0]));
        assertThat(served).containsAll(queried);
    }

    @Test
    void sigtermReachesTheJvmItselfWhichStopsWithExitCode143() throws IOException {
        try (ScriptProcess second = ScriptProcess.start(
                dist.script(),
                ScriptProcess.onThisJava(),
                "--no-auth",
                "--zookeeper",
                ensemble.connectString(),
                "--port",
                "0",
                "--bind",
                "127.0.0.1")) {
            int port = second.awaitListening();
            assertThat(new HttpApi(port).get("/health/live", null).status()).isEqualTo(200);
            assertThat(second.commandLine().get(0))
                    .as("the script execs java: the signal goes to the server, no shell stays in between")
                    .startsWith(thisJavaHome());

            assertThat(second.terminate())
                    .as("128 + SIGTERM, the systemd unit's SuccessExitStatus")
                    .isEqualTo(143);
            assertThatThrownBy(() -> new Socket("127.0.0.1", port).close())
                    .as("nothing listens on the port any more")
                    .isInstanceOf(ConnectException.class);
        }
    }

    /** This JVM's home as the kernel names it (the process's executable path has no symlinks). */
    private static String thisJavaHome() throws IOException {
        return Path.of(System.getProperty("java.home")).toRealPath().toString();
    }

    /** Every zkfence_service_* name in the dashboard (queries and variables). */
    private static Set<String> dashboardServiceMetrics() throws IOException {
        Matcher m = Pattern.compile("zkfence_service_[a-z_]+")
                .matcher(Files.readString(Path.of(System.getProperty("zkfence.dashboard"))));
        Set<String> names = new TreeSet<>();
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }
}

package io.zkfence.samples.inventory.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.testing.PostgresServer;
import io.zkfence.testing.Teardown;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two replicas of the inventory service, each on a random port with its own ZooKeeper session,
 * over one embedded ensemble and one embedded PostgreSQL; driven over HTTP.
 */
class InventoryServiceTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Stops the replicas, then the servers, after the last test. */
    @RegisterExtension
    static final Teardown teardown = Teardown.afterAll();

    private static EmbeddedEnsemble zk;
    private static PostgresServer postgres;
    private static ConfigurableApplicationContext east;
    private static ConfigurableApplicationContext west;
    private static HttpClient http;

    @BeforeAll
    static void start() {
        zk = teardown.closeLater(EmbeddedEnsemble.builder().servers(1).start());
        postgres = teardown.closeLater(PostgresServer.start());
        east = teardown.closeLater(replica("east"));
        west = teardown.closeLater(replica("west"));
        http = teardown.closeLater(
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build());
    }

    private static ConfigurableApplicationContext replica(String name) {
        return new SpringApplicationBuilder(InventoryApplication.class)
                .properties(
                        "server.port=0",
                        "spring.main.banner-mode=off",
                        "zkfence.connect-string=" + zk.connectString(),
                        "zkfence.owner-id=" + name,
                        "spring.datasource.url=" + postgres.jdbcUrl(),
                        "spring.datasource.username=postgres",
                        // Generous for a loaded test machine: no request here should give up on the lock.
                        "inventory.lock-wait=30s")
                .run();
    }

    @Test
    void concurrentReservationsThroughTwoReplicasNeverOversell() throws Exception {
        stock("SKU-1", 10);
        List<Future<HttpResponse<String>>> responses = new ArrayList<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 8; i++) {
                responses.add(clients.submit(() -> reserve(east, "SKU-1", 1)));
                responses.add(clients.submit(() -> reserve(west, "SKU-1", 1)));
            }
        }
        List<Integer> statuses = new ArrayList<>();
        for (Future<HttpResponse<String>> r : responses) {
            statuses.add(r.get().statusCode());
        }
        assertThat(statuses).filteredOn(s -> s == 201).hasSize(10);
        assertThat(statuses).filteredOn(s -> s == 409).hasSize(6);

        assertThat(available("SKU-1")).isZero();
        assertThat(JSON.readTree(get(west, "/stock/SKU-1").body())
                        .get("available")
                        .asInt())
                .isZero();
        List<Long> tokens = reservationTokens("SKU-1");
        assertThat(tokens).hasSize(10);
        // One grant per reservation, in the order they were written: each token above the one before.
        assertThat(tokens).isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
    }

    @Test
    void aStaleTokenWriteIsRejected() throws Exception {
        stock("SKU-2", 5);
        // West holds the SKU's lock, then pauses past its lease (here: let go without writing);
        long westToken;
        try (Lease lease = west.getBean(LockClient.class)
                .lock(StockLedger.fenceKey("SKU-2"))
                .acquire(Duration.ofSeconds(30))) {
            westToken = lease.token();
        }
        // east takes the lock next and reserves through HTTP;
        HttpResponse<String> reserved = reserve(east, "SKU-2", 2);
        assertThat(reserved.statusCode()).isEqualTo(201);
        JsonNode reservation = JSON.readTree(reserved.body());
        long eastToken = reservation.get("token").asLong();
        assertThat(eastToken).isGreaterThan(westToken);
        assertThat(reservation.get("remaining").asInt()).isEqualTo(3);

        // west wakes up and writes with the token it had: the fence rejects it, nothing is written.
        JdbcStaleTokenException stale = assertThrows(
                JdbcStaleTokenException.class,
                () -> west.getBean(StockLedger.class).reserve("SKU-2", 3, westToken));
        assertThat(stale.presentedToken()).isEqualTo(westToken);
        assertThat(stale.storedToken()).isEqualTo(eastToken);
        assertThat(available("SKU-2")).isEqualTo(3);
        assertThat(reservationTokens("SKU-2")).containsExactly(eastToken);
    }

    @Test
    void notEnoughStockIsAConflictAndAnUnknownSkuIsNotFound() throws Exception {
        stock("SKU-3", 1);
        assertThat(reserve(east, "SKU-3", 2).statusCode()).isEqualTo(409);
        assertThat(reserve(west, "SKU-404", 1).statusCode()).isEqualTo(404);
        assertThat(available("SKU-3")).isEqualTo(1);
    }

    private static HttpResponse<String> reserve(ConfigurableApplicationContext replica, String sku, int quantity)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(
                        uri(replica, "/stock/" + sku + "/reservations?quantity=" + quantity))
                .POST(HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(60))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(ConfigurableApplicationContext replica, String path)
            throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(uri(replica, path))
                        .timeout(Duration.ofSeconds(60))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(ConfigurableApplicationContext replica, String path) {
        return URI.create(
                "http://localhost:" + replica.getEnvironment().getRequiredProperty("local.server.port") + path);
    }

    private static DataSource database() {
        return postgres.dataSource();
    }

    private static void stock(String sku, int available) throws SQLException {
        try (Connection c = database().getConnection();
                PreparedStatement insert = c.prepareStatement("insert into stock (sku, available) values (?, ?)")) {
            insert.setString(1, sku);
            insert.setInt(2, available);
            insert.executeUpdate();
        }
    }

    private static int available(String sku) throws SQLException {
        try (Connection c = database().getConnection();
                PreparedStatement select = c.prepareStatement("select available from stock where sku = ?")) {
            select.setString(1, sku);
            try (ResultSet rs = select.executeQuery()) {
                assertThat(rs.next()).as("stock row of %s", sku).isTrue();
                return rs.getInt(1);
            }
        }
    }

    private static List<Long> reservationTokens(String sku) throws SQLException {
        List<Long> tokens = new ArrayList<>();
        try (Connection c = database().getConnection();
                PreparedStatement select =
                        c.prepareStatement("select token from reservation where sku = ? order by id")) {
            select.setString(1, sku);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    tokens.add(rs.getLong(1));
                }
            }
        }
        return tokens;
    }
}

package io.zkfence.samples.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.lock.LockClient;
import io.zkfence.samples.Schema;
import io.zkfence.samples.testing.EnsembleClients;
import io.zkfence.samples.testing.GatedDataSource;
import io.zkfence.samples.testing.PausedClient;
import io.zkfence.samples.testing.SampleDatabase;
import io.zkfence.testing.Ensemble;
import io.zkfence.testing.Teardown;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class InventoryReservationsTest {

    private static final SampleDatabase db = SampleDatabase.shared();
    private final Ensemble ensemble = Ensemble.shared();

    @RegisterExtension
    final Teardown teardown = Teardown.afterEach();

    private String sku;

    @BeforeAll
    static void schema() {
        JdbcFence.create(db.pool()).createIfMissing();
        Schema.apply(db.pool(), InventoryReservations.class);
    }

    @BeforeEach
    void freshSku() {
        sku = "sku-" + UUID.randomUUID();
    }

    @Test
    void concurrentReservationsFromTwoProcessesNeverOversell() throws Exception {
        db.update("insert into inventory_stock (sku, quantity) values (?, 15)", sku);
        InventoryReservations podA = new InventoryReservations(client("pod-a"), db.pool());
        InventoryReservations podB = new InventoryReservations(client("pod-b"), db.pool());
        ExecutorService threads = Executors.newFixedThreadPool(8);
        List<CompletableFuture<Boolean>> attempts = new ArrayList<>();
        try {
            for (int i = 0; i < 24; i++) {
                InventoryReservations pod = i % 2 == 0 ? podA : podB;
                String order = "order-" + i;
                attempts.add(CompletableFuture.supplyAsync(() -> pod.reserve(sku, order, 1), threads));
            }
            CompletableFuture.allOf(attempts.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
        } finally {
            threads.shutdownNow();
        }

        assertThat(attempts).filteredOn(CompletableFuture::join).hasSize(15);
        assertThat(db.queryLong("select quantity from inventory_stock where sku = ?", sku))
                .isZero();
        assertThat(db.queryLong("select count(*) from inventory_reservation where sku = ?", sku))
                .isEqualTo(15);
        assertThat(db.queryLong("select count(distinct token) from inventory_reservation where sku = ?", sku))
                .as("each reservation under its own grant")
                .isEqualTo(15);
        // Attempts that found no stock advanced the fence too (under later grants), never past the lock.
        assertThat(JdbcFence.create(db.pool())
                        .currentToken("inventory:sku:" + sku)
                        .orElseThrow())
                .isGreaterThanOrEqualTo(
                        db.queryLong("select max(token) from inventory_reservation where sku = ?", sku));
    }

    @Test
    void aHolderPausedPastItsSessionIsRejectedAndWritesNothing() throws Exception {
        db.update("insert into inventory_stock (sku, quantity) values (?, 10)", sku);
        PausedClient pausedClient = teardown.closeLater(new PausedClient(ensemble, "paused-pod"));
        GatedDataSource pausedPool = new GatedDataSource(db.pool());
        InventoryReservations paused = new InventoryReservations(pausedClient.locks(), pausedPool);
        InventoryReservations next = new InventoryReservations(client("next-pod"), db.pool());

        pausedPool.hold();
        CompletableFuture<Boolean> late = CompletableFuture.supplyAsync(() -> paused.reserve(sku, "late", 3));
        pausedPool.awaitHeld(1, TimeUnit.MINUTES); // it holds the lock and its token, and has written nothing yet
        pausedClient.freeze(); // no heartbeats: the servers expire its session

        assertThat(next.reserve(sku, "on-time", 2))
                .as("granted once the paused holder's node is gone")
                .isTrue();
        pausedClient.thaw();
        pausedPool.release(); // the paused holder goes on with its write

        assertThatThrownBy(() -> late.get(1, TimeUnit.MINUTES)).cause().isInstanceOf(JdbcStaleTokenException.class);
        assertThat(db.queryLong("select quantity from inventory_stock where sku = ?", sku))
                .isEqualTo(8);
        assertThat(db.queryLong("select count(*) from inventory_reservation where sku = ? and order_id = 'late'", sku))
                .isZero();
    }

    @Test
    void theSampleRunsFromItsMain() {
        db.update("insert into inventory_stock (sku, quantity) values (?, 5)", sku);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            InventoryReservations.main(
                    new String[] {ensemble.connectString(), db.jdbcUrl(), "postgres", "", sku, "order-main", "2"});
        } finally {
            System.setOut(original);
        }
        assertThat(out.toString(StandardCharsets.UTF_8).lines()).contains("order-main: reserved 2 of " + sku);
        assertThat(db.queryLong("select quantity from inventory_stock where sku = ?", sku))
                .isEqualTo(3);
    }

    private LockClient client(String owner) {
        return teardown.closeLater(EnsembleClients.lockClient(ensemble, "/zkfence/locks", owner));
    }
}

package io.zkfence.samples.payments;

import static io.zkfence.samples.payments.PaymentWebhookHandler.Outcome.DUPLICATE;
import static io.zkfence.samples.payments.PaymentWebhookHandler.Outcome.RECORDED;
import static io.zkfence.samples.payments.PaymentWebhookHandler.Outcome.SUPERSEDED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.lock.Lease;
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
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PaymentWebhookHandlerTest {

    private static final SampleDatabase db = SampleDatabase.shared();
    private final Ensemble ensemble = Ensemble.shared();

    @RegisterExtension
    final Teardown teardown = Teardown.afterEach();

    private PaymentEvent event;

    @BeforeAll
    static void schema() {
        JdbcFence.create(db.pool()).createIfMissing();
        Schema.apply(db.pool(), PaymentWebhookHandler.class);
    }

    @BeforeEach
    void freshOrder() {
        String order = "order-" + UUID.randomUUID();
        db.update("insert into shop_order (order_id, amount_due) values (?, 4200)", order);
        event = new PaymentEvent("pay_" + UUID.randomUUID(), order, 4200);
    }

    @Test
    void duplicateDeliveriesRacingOnTwoInstancesRecordThePaymentOnce() throws Exception {
        PaymentDao dao = new PaymentDao(db.pool());
        PaymentWebhookHandler instance1 = new PaymentWebhookHandler(client("instance-1"), dao);
        PaymentWebhookHandler instance2 = new PaymentWebhookHandler(client("instance-2"), dao);
        int deliveries = 10;
        CyclicBarrier start = new CyclicBarrier(deliveries);
        ExecutorService threads = Executors.newFixedThreadPool(deliveries);
        List<CompletableFuture<PaymentWebhookHandler.Outcome>> outcomes = new ArrayList<>();
        try {
            for (int i = 0; i < deliveries; i++) {
                PaymentWebhookHandler handler = i % 2 == 0 ? instance1 : instance2;
                outcomes.add(CompletableFuture.supplyAsync(
                        () -> {
                            await(start);
                            return handler.handle(event);
                        },
                        threads));
            }
            CompletableFuture.allOf(outcomes.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
        } finally {
            threads.shutdownNow();
        }

        assertThat(outcomes)
                .extracting(CompletableFuture::join)
                .containsOnlyOnce(RECORDED)
                .filteredOn(o -> o == DUPLICATE)
                .hasSize(deliveries - 1);
        assertThat(payments()).isEqualTo(1);
        assertThat(amountPaid()).isEqualTo(4200);
    }

    @Test
    void aHandlerWhoseLeaseRanOutIsSupersededAndRecordsNothing() throws Exception {
        PausedClient pausedClient = teardown.closeLater(new PausedClient(ensemble, "paused-instance"));
        GatedDataSource pausedPool = new GatedDataSource(db.pool());
        PaymentWebhookHandler paused = new PaymentWebhookHandler(pausedClient.locks(), new PaymentDao(pausedPool));
        PaymentWebhookHandler next = new PaymentWebhookHandler(client("next-instance"), new PaymentDao(db.pool()));

        pausedPool.hold();
        CompletableFuture<PaymentWebhookHandler.Outcome> late =
                CompletableFuture.supplyAsync(() -> paused.handle(event));
        pausedPool.awaitHeld(1, TimeUnit.MINUTES); // holds the payment's lock and token; nothing written yet
        pausedClient.freeze(); // the servers expire its session

        assertThat(next.handle(event)).isEqualTo(RECORDED); // the provider's retry, at another instance
        pausedClient.thaw();
        pausedPool.release();

        assertThat(late.get(1, TimeUnit.MINUTES)).isEqualTo(SUPERSEDED);
        assertThat(payments()).isEqualTo(1);
        assertThat(amountPaid()).isEqualTo(4200);
    }

    @Test
    void aRetryWithATokenFromBeforeANewerGrantIsRejectedByTheDao() {
        LockClient locks = client("dao-test");
        PaymentDao dao = new PaymentDao(db.pool());
        long older;
        long newer;
        try (Lease first = locks.lock("payment:" + event.paymentId()).acquire()) {
            older = first.token();
        }
        try (Lease second = locks.lock("payment:" + event.paymentId()).acquire()) {
            newer = second.token();
            assertThat(dao.record(event, newer)).isTrue();
        }

        assertThatThrownBy(() -> dao.record(event, older))
                .isInstanceOf(JdbcStaleTokenException.class)
                .hasMessageContaining("payment:" + event.paymentId())
                .hasMessageContaining("presented " + older)
                .hasMessageContaining("accepted " + newer);
        assertThat(payments()).isEqualTo(1);
        assertThat(amountPaid()).isEqualTo(4200);
    }

    @Test
    void theSampleRunsFromItsMain() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            PaymentsSample.main(new String[] {ensemble.connectString(), db.jdbcUrl(), "postgres", ""});
        } finally {
            System.setOut(original);
        }
        List<String> lines = out.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(l -> l.startsWith("pay_"))
                .toList();
        assertThat(lines).hasSize(3);
        assertThat(lines).filteredOn(l -> l.endsWith(": RECORDED")).hasSize(1);
        assertThat(lines).filteredOn(l -> l.endsWith(": DUPLICATE")).hasSize(2);
    }

    private long payments() {
        return db.queryLong("select count(*) from payment where payment_id = ?", event.paymentId());
    }

    private long amountPaid() {
        return db.queryLong("select amount_paid from shop_order where order_id = ?", event.orderId());
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(1, TimeUnit.MINUTES);
        } catch (Exception e) {
            throw new IllegalStateException("the deliveries did not start together", e);
        }
    }

    private LockClient client(String owner) {
        return teardown.closeLater(EnsembleClients.lockClient(ensemble, "/zkfence/locks", owner));
    }
}

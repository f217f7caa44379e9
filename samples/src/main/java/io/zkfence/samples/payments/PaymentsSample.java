package io.zkfence.samples.payments;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.LockClient;
import io.zkfence.samples.Schema;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

/**
 * Runs the webhook handler: the provider delivers one "payment succeeded" event three times at
 * once; one delivery records it, the others find it recorded.
 * {@code PaymentsSample <zookeeper> <jdbc-url> <user> <password>}
 */
public final class PaymentsSample {

    private PaymentsSample() {}

    public static void main(String[] args) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[1]);
        config.setUsername(args[2]);
        config.setPassword(args[3]);
        try (HikariDataSource pool = new HikariDataSource(config);
                LockClient locks = LockClient.connect(args[0])) {
            JdbcFence.create(pool).createIfMissing();
            Schema.apply(pool, PaymentsSample.class);
            PaymentWebhookHandler handler = new PaymentWebhookHandler(locks, new PaymentDao(pool));
            PaymentEvent event = new PaymentEvent("pay_" + System.nanoTime(), "order-1", 4200);
            List<CompletableFuture<PaymentWebhookHandler.Outcome>> deliveries = IntStream.range(0, 3)
                    .mapToObj(i -> CompletableFuture.supplyAsync(() -> handler.handle(event)))
                    .toList();
            deliveries.forEach(d -> System.out.println(event.paymentId() + ": " + d.join()));
        }
    }
}

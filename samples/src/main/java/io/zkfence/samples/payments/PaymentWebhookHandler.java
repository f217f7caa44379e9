package io.zkfence.samples.payments;

import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.jdbc.SerializationConflictException;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import java.time.Duration;

/**
 * Handles the provider's "payment succeeded" webhook on any number of instances. Duplicate
 * deliveries of one payment take turns on the lock {@code payment:<id>}; the lease's token goes
 * down into the DAO with every write, so a handler that lost its turn cannot record anything.
 */
public final class PaymentWebhookHandler {

    /** What the handler did with one delivery; every outcome is answered 200 to the provider. */
    public enum Outcome {
        /** This delivery recorded the payment. */
        RECORDED,
        /** The payment was already recorded by an earlier delivery. */
        DUPLICATE,
        /** This handler's lease ran out while it worked; a newer holder owns the payment now. */
        SUPERSEDED
    }

    private final LockClient locks;
    private final PaymentDao payments;

    public PaymentWebhookHandler(LockClient locks, PaymentDao payments) {
        this.locks = locks;
        this.payments = payments;
    }

    // snippet:handle
    public Outcome handle(PaymentEvent event) {
        try (Lease lease = locks.lock("payment:" + event.paymentId()).acquire(Duration.ofSeconds(10))) {
            for (int attempt = 1; ; attempt++) {
                try {
                    return payments.record(event, lease.token()) ? Outcome.RECORDED : Outcome.DUPLICATE;
                } catch (SerializationConflictException e) {
                    if (attempt == 3) {
                        throw e; // the database kept aborting; the provider will deliver again
                    } // else retry the whole unit with the same token: nothing was written
                }
            }
        } catch (JdbcStaleTokenException e) {
            return Outcome.SUPERSEDED; // do not retry: this token is rejected for good
        }
    }
    // end:handle
}

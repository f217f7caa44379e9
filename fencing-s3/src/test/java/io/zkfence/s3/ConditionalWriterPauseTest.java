package io.zkfence.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.fencing.internal.Backoff;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The pause between retries of a lost race: what an interrupt does to it. */
class ConditionalWriterPauseTest {

    @Test
    void anInterruptDuringThePauseIsReportedNamingTheObjectAndTheFlagIsRestored() {
        ConditionalWriter writer = new ConditionalWriter(
                "my-bucket", null, null, Backoff.exponential(Duration.ofSeconds(10), Duration.ofSeconds(10)), 3);
        Thread.currentThread().interrupt();
        try {
            S3FenceException e = assertThrows(S3FenceException.class, () -> writer.pause(1, "orders/1"));

            assertThat(e.getCause()).isInstanceOf(InterruptedException.class);
            assertThat(e.getMessage()).contains("interrupted", "s3://my-bucket/orders/1");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aZeroBackoffDoesNotPause() {
        ConditionalWriter writer =
                new ConditionalWriter("my-bucket", null, null, Backoff.exponential(Duration.ZERO, Duration.ZERO), 3);
        Thread.currentThread().interrupt();
        try {
            writer.pause(5, "orders/1"); // no sleep, so the pending interrupt is not even seen
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }
}

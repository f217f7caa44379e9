package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The one conversion of an interrupted acquire into the JDK's InterruptedException. */
class AcquireInterruptedExceptionTest {

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void theInterruptMovesFromTheThreadsFlagIntoTheInterruptedException() {
        // As lock-core throws it: the thread's flag set again.
        Thread.currentThread().interrupt();
        AcquireInterruptedException thrown = new AcquireInterruptedException("orders", new InterruptedException());

        InterruptedException converted = thrown.toInterruptedException();

        assertThat(Thread.currentThread().isInterrupted()).as("flag cleared").isFalse();
        assertThat(converted).hasCause(thrown).hasMessage("interrupted while acquiring lock 'orders'");
    }
}

package io.zkfence.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SignalsTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void aStoppedProcessStaysStoppedUntilItIsResumed() throws IOException, InterruptedException {
        Process sleeper = new ProcessBuilder("sleep", "120").start();
        try {
            assertThat(Signals.stop(sleeper)).isTrue();
            await().atMost(PATIENCE).until(() -> Signals.state(sleeper.pid()).startsWith("T"));
            assertThat(Signals.state(sleeper.pid())).isEqualTo("T (stopped)");

            assertThat(Signals.resume(sleeper)).isTrue();
            await().atMost(PATIENCE).until(() -> !Signals.state(sleeper.pid()).startsWith("T"));
            assertThat(sleeper.isAlive()).isTrue();
        } finally {
            sleeper.destroyForcibly();
            sleeper.waitFor();
        }
    }

    @Test
    void aProcessThatHasExitedIsNotSignalled() throws IOException, InterruptedException {
        Process done = new ProcessBuilder("true").start();
        assertThat(done.waitFor()).isZero();

        assertThat(Signals.stop(done)).isFalse();
        assertThat(Signals.resume(done)).isFalse();
        assertThat(Signals.state(done.pid())).isEmpty();
    }
}

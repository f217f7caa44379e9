package io.zkfence.recipes.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.lock.LockClient;
import io.zkfence.testkit.FreezableProxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * The failure the fence exists for: a rebuilder pauses in its loader past its session, the
 * servers expire it, another pod rebuilds and writes; then the paused one wakes with its older
 * value and token.
 */
class PausedRebuilderTest extends CacheTestBase {

    @Test
    void aRebuilderPausedPastItsSessionCannotOverwriteTheNewerValue() {
        FreezableProxy proxy = proxy();
        LockClient pausedClient = clientThrough(proxy, "paused-pod", SHORT_SESSION, Duration.ofSeconds(1));
        CacheRebuild<String> paused = pod(pausedClient).build();
        CacheRebuild<String> other = pod(client("other-pod")).build();
        CountDownLatch loading = new CountDownLatch(1);
        CountDownLatch wake = new CountDownLatch(1);
        closeLater((AutoCloseable) wake::countDown);

        CompletableFuture<String> pausedGet = async(() -> paused.get(key, () -> {
            loading.countDown();
            await(wake);
            return "old";
        }));
        await(loading); // the paused pod holds the rebuild lock and is in its loader
        proxy.freeze();

        // The other pod queues behind it and gets the lock once the servers expire the paused session.
        assertThat(other.get(key, () -> "new")).isEqualTo("new");
        CachedValue<String> newer = store().read(key).orElseThrow();

        proxy.thaw();
        wake.countDown();

        // Its write carried the older token: the fence rejected it, and it serves the newer value.
        assertThat(pausedGet.join()).isEqualTo("new");
        assertThat(store().read(key).orElseThrow()).isEqualTo(newer);
        assertThat(JdbcFence.create(db).currentToken(CacheRebuild.lockName(key)))
                .hasValue(newer.token());
    }
}

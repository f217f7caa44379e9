package io.zkfence.spring.boot;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockStats;
import java.util.function.ToLongFunction;

/**
 * Publishes {@link LockClient#stats()} to Micrometer. The stats are monotonic counters since the
 * client was created, so each is a {@link FunctionCounter} that reads a fresh snapshot when the
 * registry polls it (no work on the lock path). Interim: when lock-core records Micrometer meters
 * of its own (timers, gauges of held leases), this binder gives way to them.
 */
final class ZkfenceMetrics implements MeterBinder {

    private final LockClient client;

    ZkfenceMetrics(LockClient client) {
        this.client = client;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "zkfence.lock.grants", "locks granted (a re-entrant acquire is not a new grant)", LockStats::grants);
        counter(registry, "zkfence.lock.releases", "grants released by their holder", LockStats::releases);
        counter(registry, "zkfence.lease.lost", "grants that ended LOST (session expired, node deleted, max-hold passed)",
                LockStats::leasesLost);
        counter(registry, "zkfence.zk.creates", "queue-node creates sent, retries included", LockStats::creates);
        counter(registry, "zkfence.zk.children.reads", "reads of a lock's child list", LockStats::childrenReads);
        counter(registry, "zkfence.lock.wakeups", "watch events on a predecessor delivered to waiters", LockStats::wakeUps);
    }

    private void counter(MeterRegistry registry, String name, String description, ToLongFunction<LockStats> value) {
        FunctionCounter.builder(name, client, c -> value.applyAsLong(c.stats()))
                .description(description)
                .tag("owner", client.config().ownerId())
                .register(registry);
    }
}

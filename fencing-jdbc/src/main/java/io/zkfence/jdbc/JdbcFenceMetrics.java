package io.zkfence.jdbc;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.zkfence.fencing.internal.FenceObserver;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Micrometer meters for one {@link JdbcFence}: {@code zkfence.fence.writes} with tags
 * {@code adapter=jdbc}, {@code resource} (the fence table, as configured), {@code operation}
 * ({@code transaction}: {@link JdbcFence#inTransaction} and {@link JdbcFence#claim}, committed;
 * {@code advance}: {@code advance} and {@code JooqFence.advance}, whose commit is the caller's) and
 * {@code outcome} ({@code accepted}, {@code stale}, {@code conflict}: a retryable
 * {@link SerializationConflictException}). docs/operations.md ("Metrics") lists them. Keys are
 * never a tag: they are unbounded. fencing-s3's binder uses the same meter name and tag keys (its
 * {@code resource} is the bucket), as Prometheus requires of one name.
 *
 * <pre>{@code
 * JdbcFenceMetrics.of(fence).bindTo(registry);
 * }</pre>
 *
 * <p>Micrometer is an optional dependency of fencing-jdbc: only this class refers to it and
 * nothing else loads it. A second bind to a registry already bound (by any binder) is ignored.
 */
public final class JdbcFenceMetrics implements MeterBinder {

    private static final String[] OPERATIONS = {"transaction", "advance"};

    private final JdbcFence fence;

    private JdbcFenceMetrics(JdbcFence fence) {
        this.fence = Objects.requireNonNull(fence, "fence");
    }

    /**
     * The binder for {@code fence}.
     *
     * @param fence the fence to observe
     * @return its binder
     */
    public static JdbcFenceMetrics of(JdbcFence fence) {
        return new JdbcFenceMetrics(fence);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        if (!fence.observers.bind(registry)) {
            return; // bound to this registry already (by this binder or another)
        }
        Map<String, Counter> accepted = new HashMap<>();
        Map<String, Counter> stale = new HashMap<>();
        Map<String, Counter> conflict = new HashMap<>();
        for (String operation : OPERATIONS) {
            accepted.put(operation, writes(registry, operation, "accepted"));
            stale.put(operation, writes(registry, operation, "stale"));
            conflict.put(operation, writes(registry, operation, "conflict"));
        }
        fence.observers.add(new FenceObserver() {
            @Override
            public void accepted(String operation) {
                accepted.get(operation).increment();
            }

            @Override
            public void rejectedStale(String operation) {
                stale.get(operation).increment();
            }

            @Override
            public void conflict(String operation) {
                conflict.get(operation).increment();
            }
        });
    }

    private Counter writes(MeterRegistry registry, String operation, String outcome) {
        return Counter.builder("zkfence.fence.writes")
                .description("fenced calls by outcome: accepted, stale (token rejected), conflict (retryable)")
                .tags(Tags.of(
                        "adapter",
                        "jdbc",
                        "resource",
                        fence.config().qualifiedTable(),
                        "operation",
                        operation,
                        "outcome",
                        outcome))
                .register(registry);
    }
}

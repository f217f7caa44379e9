package io.zkfence.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The replica's meters (Micrometer, scraped by Prometheus at {@code GET /metrics}). Each replica
 * counts what it served; sum over replicas in queries. No lock key is a tag: keys are unbounded.
 *
 * <ul>
 * <li>{@code zkfence.service.acquire} (timer, {@code outcome} = granted, conflict, abandoned, refused):
 *     acquire calls from request to answer, the wait included;
 * <li>{@code zkfence.service.wait} (timer): for granted acquires that had to queue, the time queued;
 * <li>{@code zkfence.service.hold} (timer): from a grant to its release through this replica;
 * <li>{@code zkfence.service.grants}, {@code zkfence.service.conflicts} (409 LOCK_ALREADY_HELD),
 *     {@code zkfence.service.waits.abandoned} (waits whose caller closed its connection; their
 *     entries were removed at once),
 *     {@code zkfence.service.expiries} (leases this replica found past their expiry and removed),
 *     {@code zkfence.service.force.releases} ({@code outcome}), {@code zkfence.service.renew.failures}
 *     ({@code error} = LOCK_EXPIRED, NOT_LOCK_OWNER, …) (counters);
 * <li>{@code zkfence.service.waits.open} (gauge): acquires waiting in this replica now.
 * </ul>
 */
final class ServiceMetrics {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Counter grants;
    private final Counter conflicts;
    private final Counter abandoned;
    private final Counter expiries;
    private final Timer waits;
    private final Timer holds;
    private final AtomicInteger openWaits = new AtomicInteger();

    ServiceMetrics() {
        grants = Counter.builder("zkfence.service.grants")
                .description("acquires granted")
                .register(registry);
        conflicts = Counter.builder("zkfence.service.conflicts")
                .description("acquires answered 409 LOCK_ALREADY_HELD")
                .register(registry);
        abandoned = Counter.builder("zkfence.service.waits.abandoned")
                .description("waiting acquires whose caller closed its connection: their entries were removed at once")
                .register(registry);
        expiries = Counter.builder("zkfence.service.expiries")
                .description("expired leases this replica removed")
                .register(registry);
        waits = Timer.builder("zkfence.service.wait")
                .description("time queued, for granted acquires that waited")
                .publishPercentileHistogram()
                .register(registry);
        holds = Timer.builder("zkfence.service.hold")
                .description("grant to release, for releases through this replica")
                .publishPercentileHistogram()
                .register(registry);
        registry.gauge("zkfence.service.waits.open", openWaits);
    }

    MeterRegistry registry() {
        return registry;
    }

    /** The meters in Prometheus' text format. */
    String scrape() {
        return registry.scrape();
    }

    void acquired(Duration took, String outcome) {
        Timer.builder("zkfence.service.acquire")
                .description("acquire calls, the wait included")
                .tag("outcome", outcome)
                .publishPercentileHistogram()
                .register(registry)
                .record(took);
        switch (outcome) {
            case "granted" -> grants.increment();
            case "conflict" -> conflicts.increment();
            case "abandoned" -> abandoned.increment();
            default -> {} // refused: bad input, auth, unavailable; counted by the timer's tag
        }
    }

    void waited(Duration queued) {
        waits.record(queued);
    }

    void held(Duration held) {
        holds.record(held);
    }

    void expired() {
        expiries.increment();
    }

    void forceReleased(String outcome) {
        registry.counter("zkfence.service.force.releases", "outcome", outcome).increment();
    }

    void renewFailed(String error) {
        registry.counter("zkfence.service.renew.failures", "error", error).increment();
    }

    void waitStarted() {
        openWaits.incrementAndGet();
    }

    void waitEnded() {
        openWaits.decrementAndGet();
    }
}

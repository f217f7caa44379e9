package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.server.ReplicaFixture.Reply;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Each meter of a replica moves when its event happens, read back from its Prometheus endpoint. */
class ServiceMetricsTest extends TwoReplicasTestBase {

    private static final String KEY = "metrics:one";

    private static double value(Reply scrape, String series) {
        return ReplicaFixture.meter(scrape.body().asText(), series);
    }

    private Reply scrape(ReplicaFixture replica) {
        return replica.text("/metrics");
    }

    @Test
    void grantsConflictsWaitsHoldsExpiriesRenewFailuresAndForcedReleasesAreCounted() throws Exception {
        Reply first = a.post(KEY, "acquire", "{\"ownerId\":\"one\",\"ttlMillis\":60000}");
        assertThat(a.post(KEY, "acquire", "{\"ownerId\":\"two\",\"ttlMillis\":60000}")
                        .status())
                .isEqualTo(409);
        CompletableFuture<Reply> waiting = CompletableFuture.supplyAsync(() ->
                a.post(KEY, "acquire", "{\"ownerId\":\"three\",\"ttlMillis\":400,\"wait\":true,\"waitMillis\":30000}"));
        Awaitility.await().until(() -> value(scrape(a), "zkfence_service_waits_open") == 1.0);
        a.post(
                KEY,
                "release",
                "{\"ownerId\":\"one\",\"lockToken\":\""
                        + first.body().get("lockToken").asText() + "\"}");
        Reply third = waiting.get(30, TimeUnit.SECONDS);
        assertThat(third.status()).isEqualTo(200);

        Reply m = scrape(a);
        assertThat(m.contentType()).startsWith("text/plain");
        assertThat(value(m, "zkfence_service_grants_total")).isEqualTo(2.0);
        assertThat(value(m, "zkfence_service_conflicts_total")).isEqualTo(1.0);
        assertThat(value(m, "zkfence_service_acquire_seconds_count{outcome=\"granted\"}"))
                .isEqualTo(2.0);
        assertThat(value(m, "zkfence_service_acquire_seconds_count{outcome=\"conflict\"}"))
                .isEqualTo(1.0);
        assertThat(value(m, "zkfence_service_wait_seconds_count")).isEqualTo(1.0);
        assertThat(value(m, "zkfence_service_hold_seconds_count")).isEqualTo(1.0);
        assertThat(value(m, "zkfence_service_waits_open")).isZero();

        // The third lease is not renewed: a status read on replica b finds it expired and removes it.
        Awaitility.await().until(() -> b.get(KEY).status() == 404);
        assertThat(value(scrape(b), "zkfence_service_expiries_total")).isEqualTo(1.0);
        Reply renew = a.post(
                KEY,
                "renew",
                "{\"ownerId\":\"three\",\"lockToken\":\""
                        + third.body().get("lockToken").asText() + "\",\"ttlMillis\":1000}");
        assertThat(renew.status()).isEqualTo(409);
        assertThat(value(scrape(a), "zkfence_service_renew_failures_total{error=\"LOCK_EXPIRED\"}"))
                .isEqualTo(1.0);

        a.post(KEY, "acquire", "{\"ownerId\":\"four\",\"ttlMillis\":60000}");
        b.post(KEY, "force-release", "{\"reason\":\"test\"}");
        assertThat(value(scrape(b), "zkfence_service_force_releases_total{outcome=\"released\"}"))
                .isEqualTo(1.0);
    }
}

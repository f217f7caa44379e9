package io.zkfence.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromTextTest {

    private static final String SCRAPE = """
            # HELP zkfence_service_waits_open acquires waiting now
            # TYPE zkfence_service_waits_open gauge
            zkfence_service_waits_open 7.0
            etcd_server_proposals_committed_total 1.234e+06
            go_goroutines{instance="a"} 10
            go_goroutines{instance="b"} 5
            go_goroutines_other 99
            """;

    @Test
    void aMetricIsTheSumOfItsSamplesOverEveryLabelSet() {
        PromText text = PromText.of(SCRAPE);
        assertThat(text.sum("zkfence_service_waits_open")).isEqualTo(7.0);
        assertThat(text.sum("etcd_server_proposals_committed_total")).isEqualTo(1_234_000.0);
        assertThat(text.sum("go_goroutines")).as("not go_goroutines_other").isEqualTo(15.0);
    }

    @Test
    void aMetricTheScrapeLacksIsZero() {
        assertThat(PromText.of(SCRAPE).sum("zkfence_service_grants_total")).isZero();
    }
}

package io.zkfence.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodEventTest {

    @Test
    void anEventSurvivesTheLineWithSpacesAndSeparatorsInItsValues() {
        Instant at = Instant.ofEpochMilli(1_700_000_000_123L);
        String line =
                PodEvent.encode(at, "write", "copy", "fenced", "message", "a=b & c d%\u00e9", "token", 4294967304L);

        PodEvent e = PodEvent.decode("pod-A", line).orElseThrow();

        assertThat(e.at()).isEqualTo(at);
        assertThat(e.pod()).isEqualTo("pod-A");
        assertThat(e.kind()).isEqualTo("write");
        assertThat(e.fields())
                .containsExactly(
                        Map.entry("copy", "fenced"),
                        Map.entry("message", "a=b & c d%\u00e9"),
                        Map.entry("token", "4294967304"));
        assertThat(e.getLong("token")).isEqualTo(4294967304L);
    }

    @Test
    void linesThatAreNotEventsAreIgnored() {
        assertThat(PodEvent.decode("pod-A", "SLF4J: some library printing to stdout"))
                .isEmpty();
    }

    @Test
    void aMissingFieldNamesTheEventAndThePod() {
        PodEvent e = PodEvent.decode("pod-B", PodEvent.encode(Instant.now(), "acquired", "lock", "x"))
                .orElseThrow();

        assertThatThrownBy(() -> e.get("token")).hasMessageContaining("'acquired' from pod-B has no field 'token'");
    }
}

package io.zkfence.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FmtTest {

    @Test
    void aRowIsItsCellsBetweenPipesOnOneLine() {
        assertThat(Fmt.row("zkfence", 12L, 0.5, Fmt.ratio(1.0 / 3))).isEqualTo("| zkfence | 12 | 0.5 | 0.33× |\n");
    }

    @Test
    void aRowWritesCellsAsAStringBuilderWould() {
        Object missing = null;
        assertThat(Fmt.row('x', missing, 7))
                .isEqualTo(new StringBuilder("| ")
                        .append('x')
                        .append(" | ")
                        .append(missing)
                        .append(" | ")
                        .append(7)
                        .append(" |\n")
                        .toString());
    }

    @Test
    void aLatencyRowHasTheHeadersColumnsAndNoNewline() {
        Latency l = new Latency(3, 2.0, 3.0, 3.0, 3.0, 2.0);
        String header = Fmt.LATENCY_HEADER.lines().findFirst().orElseThrow();
        assertThat(Fmt.latencyRow("fenced", l))
                .isEqualTo("| fenced | 3 | 2 µs | 3 µs | 3 µs | 3 µs | 2 µs |")
                .satisfies(row -> assertThat(row.split(" \\| ")).hasSameSizeAs(header.split(" \\| ")));
    }
}

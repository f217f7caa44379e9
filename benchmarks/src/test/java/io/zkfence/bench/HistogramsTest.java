package io.zkfence.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.junit.jupiter.api.Test;

class HistogramsTest {

    @Test
    void anIntervalHistogramComesBackWithItsCountsAndPercentiles() {
        Recorder recorder = new Recorder(3);
        for (long v = 1; v <= 1_000; v++) {
            recorder.recordValue(v * 1_000);
        }
        Histogram sent = recorder.getIntervalHistogram();
        Histogram back = Histograms.decode(Histograms.encode(sent));
        assertThat(back.getTotalCount()).isEqualTo(1_000);
        assertThat(back.getValueAtPercentile(50)).isEqualTo(sent.getValueAtPercentile(50));
        assertThat(back.getMaxValue()).isEqualTo(sent.getMaxValue());
    }

    @Test
    void aMalformedWordIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Histograms.decode("bm90"));
        assertThat(e).hasMessageContaining("bm90");
    }
}

package io.zkfence.bench;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/** Histograms as one Base64 word, for the lines worker processes print (compressed HdrHistogram encoding). */
final class Histograms {

    private Histograms() {}

    static String encode(Histogram h) {
        ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int length = h.encodeIntoCompressedByteBuffer(buffer);
        return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
    }

    /** Decodes {@link #encode}'s output; a malformed word is an IllegalArgumentException. */
    static Histogram decode(String word) {
        try {
            return Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(Base64.getDecoder().decode(word)), 0);
        } catch (DataFormatException | RuntimeException e) {
            throw new IllegalArgumentException("malformed histogram: " + word, e);
        }
    }
}

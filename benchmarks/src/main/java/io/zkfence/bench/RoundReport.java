package io.zkfence.bench;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * What one worker process measured in one round of the cross-process hot-lock workload, as the
 * one line it prints on stdout: {@code DONE <impl> <grants> <nanos> <histogram>}, the histogram of
 * its acquire waits (ns) compressed and in Base64, so the harness can merge rounds and report
 * percentiles per process.
 *
 * @param impl   the implementation the round ran
 * @param grants grants the process's threads got
 * @param nanos  from the round's common start until the process's last thread had released
 * @param waits  the process's acquire waits (ns)
 */
record RoundReport(String impl, long grants, long nanos, Histogram waits) {

    static final String PREFIX = "DONE ";

    String line() {
        ByteBuffer buffer = ByteBuffer.allocate(waits.getNeededByteBufferCapacity());
        int length = waits.encodeIntoCompressedByteBuffer(buffer);
        String histogram = Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
        return PREFIX + impl + " " + grants + " " + nanos + " " + histogram;
    }

    /** Parses {@link #line()}'s output; a malformed line is an IllegalArgumentException naming it. */
    static RoundReport parse(String line) {
        String[] parts = line.split(" ");
        if (!line.startsWith(PREFIX) || parts.length != 5) {
            throw new IllegalArgumentException("not a round report: " + line);
        }
        try {
            long grants = Long.parseLong(parts[2]);
            long nanos = Long.parseLong(parts[3]);
            Histogram waits = Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(Base64.getDecoder().decode(parts[4])), 0);
            return new RoundReport(parts[1], grants, nanos, waits);
        } catch (DataFormatException | RuntimeException e) {
            // HdrHistogram reports truncated input as a BufferUnderflowException, bad Base64 as an
            // IllegalArgumentException.
            throw new IllegalArgumentException("malformed round report: " + line, e);
        }
    }
}

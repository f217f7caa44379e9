package io.zkfence.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A mutual-exclusion check that works across processes: a few words in a memory-mapped file that
 * every process maps, changed only with atomic instructions (a {@link VarHandle} on the mapping),
 * which act on the shared physical page whichever process runs them.
 *
 * <ul>
 *   <li>The owner word: a holder entering the critical section compare-and-sets it from 0 to its
 *       own non-zero id and clears it on leaving. Finding it taken means another holder is inside
 *       at the same time: a violation, counted in the violations word.
 *   <li>The counter word: read and written back plus one inside the section, not atomically. An
 *       overlap that the owner word missed would lose an update, so at the end it must equal the
 *       number of grants.
 * </ul>
 *
 * <p>Like any such check it sees only overlaps that happen: two holders whose sections do not
 * overlap in time show nothing.
 */
final class SharedExclusion implements AutoCloseable {

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final int OWNER = 0;
    private static final int COUNTER = 8;
    private static final int VIOLATIONS = 16;
    /** One page; the words sit at its start, 8-byte aligned as atomic access needs. */
    private static final int SIZE = 4096;

    private final Path file;
    private final MappedByteBuffer words;
    private final boolean deleteOnClose;

    private SharedExclusion(Path file, MappedByteBuffer words, boolean deleteOnClose) {
        this.file = file;
        this.words = words;
        this.deleteOnClose = deleteOnClose;
    }

    /** Creates {@code file} zeroed (replacing it) and maps it; closing deletes it. */
    static SharedExclusion create(Path file) {
        try {
            Files.write(file, new byte[SIZE]);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + file, e);
        }
        return new SharedExclusion(file, map(file), true);
    }

    /** Maps a file another process created with {@link #create(Path)}. */
    static SharedExclusion open(Path file) {
        return new SharedExclusion(file, map(file), false);
    }

    /** A non-zero holder id unique across processes: the process's index and the thread's id. */
    static long holderId(int process, long threadId) {
        if (process < 0 || process >= 1 << 20 || threadId < 0 || threadId >= 1L << 40) {
            throw new IllegalArgumentException("process " + process + " or thread " + threadId + " out of range");
        }
        return ((long) (process + 1) << 40) | threadId;
    }

    /** The section a grant runs: enter, the non-atomic counter update, leave. */
    void criticalSection(long holder) {
        boolean alone = enter(holder);
        long c = (long) LONGS.getVolatile(words, COUNTER);
        Thread.onSpinWait();
        LONGS.setVolatile(words, COUNTER, c + 1);
        leave(holder, alone);
    }

    /**
     * Marks the section as taken by {@code holder}.
     *
     * @return false if another holder was inside (a violation, counted); pass the result to
     *         {@link #leave(long, boolean)}
     */
    boolean enter(long holder) {
        if (holder == 0) {
            throw new IllegalArgumentException("holder id 0 means \"nobody\"");
        }
        if (LONGS.compareAndSet(words, OWNER, 0L, holder)) {
            return true;
        }
        LONGS.getAndAdd(words, VIOLATIONS, 1L);
        return false;
    }

    /** Ends the visit {@link #enter(long)} began; clears the mark only if this holder set it. */
    void leave(long holder, boolean alone) {
        if (alone && !LONGS.compareAndSet(words, OWNER, holder, 0L)) {
            throw new IllegalStateException(
                    "the exclusion mark of holder " + holder + " was changed while it was inside");
        }
    }

    /** The counter: the number of critical sections run so far, less any lost update. */
    long counter() {
        return (long) LONGS.getVolatile(words, COUNTER);
    }

    /** Holders that found another one inside, so far. */
    long violations() {
        return (long) LONGS.getVolatile(words, VIOLATIONS);
    }

    Path file() {
        return file;
    }

    @Override
    public void close() {
        if (deleteOnClose) {
            try {
                // The mapping stays valid until collected; on Linux deleting a mapped file is fine.
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete " + file, e);
            }
        }
    }

    private static MappedByteBuffer map(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
            buffer.order(ByteOrder.nativeOrder());
            return buffer;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map " + file, e);
        }
    }
}

package io.zkfence.bench;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * What one operation of each compared variant costs its calling thread: CPU time and allocated
 * bytes (the JVM's per-thread counters), and a count the caller keeps per variant (requests sent).
 * For clients that do their work on the calling thread (the AWS SDK's synchronous client, JDBC),
 * that is the client's side of the operation, apart from the server's even when both share the JVM.
 */
final class ClientCost {

    /** Index of the caller's count per operation. */
    static final int COUNTED = 0;
    /** Index of the calling thread's CPU time per operation, µs. */
    static final int CPU_US = 1;
    /** Index of the bytes the calling thread allocated per operation, KiB. */
    static final int ALLOC_KIB = 2;

    private static final int TURN = 10;

    private ClientCost() {}

    /**
     * Runs {@code n} operations of each variant, in turns of 10 that rotate the order, and returns
     * per variant {count, CPU µs, allocated KiB}, each per operation.
     *
     * @param counter the caller's count for a variant name (e.g. requests sent), read before and after
     */
    static Map<String, double[]> perOp(List<? extends Op> ops, int n, ToLongFunction<String> counter) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Map<String, long[]> totals = new LinkedHashMap<>();
        ops.forEach(op -> totals.put(op.name(), new long[4])); // {ops, count, cpu ns, bytes}
        int turns = Math.max(1, n / TURN);
        for (int turn = 0; turn < turns; turn++) {
            for (Op op : Interleaved.order(ops, turn)) {
                long count0 = counter.applyAsLong(op.name());
                long cpu0 = threads.getCurrentThreadCpuTime();
                long bytes0 = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < TURN; i++) {
                    op.run();
                }
                long[] t = totals.get(op.name());
                t[3] += threads.getCurrentThreadAllocatedBytes() - bytes0;
                t[2] += threads.getCurrentThreadCpuTime() - cpu0;
                t[1] += counter.applyAsLong(op.name()) - count0;
                t[0] += TURN;
            }
        }
        Map<String, double[]> perOp = new LinkedHashMap<>();
        totals.forEach((name, t) ->
                perOp.put(name, new double[] {t[1] / (double) t[0], t[2] / 1e3 / t[0], t[3] / 1024.0 / t[0]}));
        return perOp;
    }
}

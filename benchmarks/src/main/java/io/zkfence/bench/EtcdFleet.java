package io.zkfence.bench;

/** Leases on etcd, through its gRPC API: grant, a key under each, keep-alives on a few streams. */
final class EtcdFleet extends ScaleFleet {

    private final EtcdLeases etcd;

    EtcdFleet(String target) {
        this.etcd = new EtcdLeases(target);
    }

    String hold(String prefix, int count, long ttlMs, long renewMs, long rampMs) {
        return ramp(count, rampMs, i -> {
            long sent = System.nanoTime();
            return etcd.grantAndPut("scale/" + prefix + "/" + i, ttlMs).thenApply(lease -> {
                acquireLatency.recordValue(System.nanoTime() - sent);
                Held held = new Held();
                keepRenewing(
                        held,
                        renewMs,
                        () -> etcd.keepAlive(lease, i).thenApply(ttl -> ttl > 0 ? Outcome.OK : Outcome.LOST));
                return true;
            });
        });
    }

    @Override
    public void close() {
        super.close();
        etcd.close();
    }
}

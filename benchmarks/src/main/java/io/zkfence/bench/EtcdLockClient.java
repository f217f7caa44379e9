package io.zkfence.bench;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One client of etcd's own lock service ({@code v3lockpb.Lock}: {@code Lock} and {@code Unlock}),
 * through jetcd, with a gRPC connection of its own. Two ways to hold the lock's lease:
 *
 * <ul>
 *   <li>{@link #sessionCycle}: a lease granted once and kept alive for the client's life, and each
 *       cycle a {@code Lock} on it and an {@code Unlock} — the way etcd's {@code concurrency}
 *       package is used (a {@code Session}, then {@code Mutex.Lock}/{@code Unlock});
 *   <li>{@link #leaseCycle}: each cycle grants a lease ({@code LeaseGrant}, TTL 30 s), locks on
 *       it and revokes it ({@code LeaseRevoke}, which deletes the lock's key): a lease per acquire,
 *       as the zkfence service's TTL lease is.
 * </ul>
 *
 * Every call waits for its answer; a failure ends the run.
 */
final class EtcdLockClient implements AutoCloseable {

    private static final long TTL_SECONDS = 30;
    private static final long CALL_TIMEOUT_SECONDS = 60;

    private final Client client;
    private final ByteSequence name;
    private long sessionLease;
    private CloseableClient keepAlive;

    EtcdLockClient(String endpoint, String lockName) {
        this.client = Client.builder().endpoints(endpoint).build();
        this.name = ByteSequence.from(lockName, StandardCharsets.UTF_8);
    }

    /** Lock on the session's lease (granted and kept alive on first use), then unlock. */
    void sessionCycle() {
        if (keepAlive == null) {
            sessionLease = await(client.getLeaseClient().grant(TTL_SECONDS)).getID();
            keepAlive = client.getLeaseClient().keepAlive(sessionLease, new StreamObserver<>() {
                @Override
                public void onNext(LeaseKeepAliveResponse value) {}

                @Override
                public void onError(Throwable t) {}

                @Override
                public void onCompleted() {}
            });
        }
        ByteSequence key =
                await(client.getLockClient().lock(name, sessionLease)).getKey();
        await(client.getLockClient().unlock(key));
    }

    /** Grant a lease, lock on it, revoke it (which deletes the lock's key). */
    void leaseCycle() {
        long lease = await(client.getLeaseClient().grant(TTL_SECONDS)).getID();
        await(client.getLockClient().lock(name, lease));
        await(client.getLeaseClient().revoke(lease));
    }

    private static <T> T await(CompletableFuture<T> call) {
        try {
            return call.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("etcd call failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("etcd did not answer within " + CALL_TIMEOUT_SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for etcd", e);
        }
    }

    @Override
    public void close() {
        if (keepAlive != null) {
            keepAlive.close();
            try {
                client.getLeaseClient().revoke(sessionLease).get(10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // The lease ends with its TTL anyway.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        client.close();
    }
}

package io.zkfence.bench;

import com.google.protobuf.ByteString;
import io.etcd.jetcd.api.KVGrpc;
import io.etcd.jetcd.api.LeaseGrantRequest;
import io.etcd.jetcd.api.LeaseGrantResponse;
import io.etcd.jetcd.api.LeaseGrpc;
import io.etcd.jetcd.api.LeaseKeepAliveRequest;
import io.etcd.jetcd.api.LeaseKeepAliveResponse;
import io.etcd.jetcd.api.PutRequest;
import io.etcd.jetcd.api.PutResponse;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Leases on etcd through its own gRPC API (the stubs jetcd is built on): {@code LeaseGrant} and a
 * key {@code Put} under the lease per holder, and {@code LeaseKeepAlive} on a few bidirectional
 * streams, one message per renewal and one answer each, as etcd's clients keep their leases alive
 * (jetcd and etcd's Go client each keep one stream for all of a client's leases).
 */
final class EtcdLeases implements AutoCloseable {

    /** Streams the keep-alives are spread over: a few clients, each with its one stream. */
    static final int STREAMS = 4;

    private final ManagedChannel channel;
    private final LeaseGrpc.LeaseStub lease;
    private final KVGrpc.KVStub kv;
    private final List<KeepAliveStream> streams = new ArrayList<>();

    /** One keep-alive stream; answers come back in the order of the requests on it. */
    private final class KeepAliveStream implements StreamObserver<LeaseKeepAliveResponse> {
        private final StreamObserver<LeaseKeepAliveRequest> requests;
        private final Map<Long, Queue<CompletableFuture<Long>>> waiting = new ConcurrentHashMap<>();

        KeepAliveStream() {
            this.requests = lease.leaseKeepAlive(this);
        }

        CompletableFuture<Long> keepAlive(long id) {
            CompletableFuture<Long> answer = new CompletableFuture<>();
            waiting.computeIfAbsent(id, k -> new ConcurrentLinkedQueue<>()).add(answer);
            synchronized (this) { // a StreamObserver is not thread-safe
                requests.onNext(LeaseKeepAliveRequest.newBuilder().setID(id).build());
            }
            return answer;
        }

        @Override
        public void onNext(LeaseKeepAliveResponse value) {
            Queue<CompletableFuture<Long>> q = waiting.get(value.getID());
            CompletableFuture<Long> answer = q == null ? null : q.poll();
            if (answer != null) {
                answer.complete(value.getTTL());
            }
        }

        @Override
        public void onError(Throwable t) {
            waiting.values().forEach(q -> q.forEach(f -> f.completeExceptionally(t)));
        }

        @Override
        public void onCompleted() {
            onError(new IllegalStateException("etcd closed a keep-alive stream"));
        }

        void close() {
            synchronized (this) {
                requests.onCompleted();
            }
        }
    }

    EtcdLeases(String target) {
        this.channel = NettyChannelBuilder.forTarget(target)
                .usePlaintext()
                .maxInboundMessageSize(16 * 1024 * 1024)
                .build();
        this.lease = LeaseGrpc.newStub(channel);
        this.kv = KVGrpc.newStub(channel);
        for (int i = 0; i < STREAMS; i++) {
            streams.add(new KeepAliveStream());
        }
    }

    /** Grants a lease of {@code ttlMs} (whole seconds, at least 1) and puts {@code key} under it; its id. */
    CompletableFuture<Long> grantAndPut(String key, long ttlMs) {
        CompletableFuture<LeaseGrantResponse> granted = new CompletableFuture<>();
        lease.leaseGrant(
                LeaseGrantRequest.newBuilder()
                        .setTTL(Math.max(1, TimeUnit.MILLISECONDS.toSeconds(ttlMs)))
                        .build(),
                unary(granted));
        return granted.thenCompose(g -> {
            if (!g.getError().isEmpty()) {
                return CompletableFuture.failedFuture(new IllegalStateException("LeaseGrant: " + g.getError()));
            }
            CompletableFuture<PutResponse> put = new CompletableFuture<>();
            kv.put(
                    PutRequest.newBuilder()
                            .setKey(ByteString.copyFrom(key, StandardCharsets.UTF_8))
                            .setValue(ByteString.copyFrom("holder", StandardCharsets.UTF_8))
                            .setLease(g.getID())
                            .build(),
                    unary(put));
            return put.thenApply(p -> g.getID());
        });
    }

    /** One keep-alive of lease {@code id} on stream {@code i mod STREAMS}; completes with the TTL left (≤ 0: lost). */
    CompletableFuture<Long> keepAlive(long id, int i) {
        return streams.get(Math.floorMod(i, STREAMS)).keepAlive(id);
    }

    private static <T> StreamObserver<T> unary(CompletableFuture<T> answer) {
        return new StreamObserver<>() {
            @Override
            public void onNext(T value) {
                answer.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                answer.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                answer.completeExceptionally(new IllegalStateException("no answer"));
            }
        };
    }

    @Override
    public void close() {
        streams.forEach(KeepAliveStream::close);
        channel.shutdownNow();
    }
}

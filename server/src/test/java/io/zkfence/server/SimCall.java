package io.zkfence.server;

import java.util.ArrayList;
import java.util.List;

/**
 * One HTTP call of the simulation, from a client to a replica: what it asks, when it was sent, and
 * the caller's presence as the replica sees it (a client that gives up closes the connection: the
 * replica's {@link CallerPresence} turns gone).
 */
final class SimCall implements CallerPresence {

    enum Kind {
        ACQUIRE,
        RENEW,
        /** A renewal through {@code POST /v1/leases/renew}: a batch of the client's one lease. */
        RENEW_BATCH,
        RELEASE,
        FORCE_RELEASE,
        STATUS
    }

    /** What the replica answered (status 0: the connection failed, no answer). */
    record Answer(
            int status,
            ErrorCode error,
            LeaseGrant grant,
            long validForMillis,
            Boolean wasHeld,
            String forceOutcome,
            String replica,
            String detail) {

        static Answer connectionFailed(String why) {
            return new Answer(0, null, null, 0, null, null, null, why);
        }

        static Answer failed(ErrorCode e, String replica, String detail) {
            return new Answer(e.status(), e, null, 0, null, null, replica, detail);
        }

        boolean ok() {
            return status == 200;
        }

        @Override
        public String toString() {
            if (status == 0) {
                return "no answer (" + detail + ")";
            }
            if (status != 200) {
                return status + " " + error + (detail == null ? "" : " (" + detail + ")");
            }
            StringBuilder b = new StringBuilder("200");
            if (grant != null) {
                b.append(" token ").append(grant.fencingToken());
            }
            if (validForMillis > 0 || grant != null) {
                b.append(" validFor ").append(validForMillis).append(" ms");
            }
            if (wasHeld != null) {
                b.append(" wasHeld ").append(wasHeld);
            }
            if (forceOutcome != null) {
                b.append(' ').append(forceOutcome);
            }
            return b.toString();
        }
    }

    final long id;
    final SimClient client;
    final Kind kind;
    final LockKey key;
    final String ownerId;
    final long ttlMillis;
    final boolean waiting;
    final long waitMillis;
    final String requestId;
    final String lockToken;
    final Long expectedToken;
    /** Sent at (µs, true time). */
    final long sentAt;

    final int replica;
    boolean answered;

    private boolean gone;
    private final List<Runnable> onGone = new ArrayList<>();

    SimCall(
            long id,
            SimClient client,
            Kind kind,
            LockKey key,
            String ownerId,
            long ttlMillis,
            boolean waiting,
            long waitMillis,
            String requestId,
            String lockToken,
            Long expectedToken,
            long sentAt,
            int replica) {
        this.id = id;
        this.client = client;
        this.kind = kind;
        this.key = key;
        this.ownerId = ownerId;
        this.ttlMillis = ttlMillis;
        this.waiting = waiting;
        this.waitMillis = waitMillis;
        this.requestId = requestId;
        this.lockToken = lockToken;
        this.expectedToken = expectedToken;
        this.sentAt = sentAt;
        this.replica = replica;
    }

    String tag() {
        return "call-" + id;
    }

    /** The client closed the connection: the replica hears it (runs on the replica's schedule). */
    void closeConnection() {
        if (gone) {
            return;
        }
        gone = true;
        List<Runnable> wakes = new ArrayList<>(onGone);
        onGone.clear();
        wakes.forEach(Runnable::run);
    }

    @Override
    public boolean gone() {
        return gone;
    }

    @Override
    public Runnable onGone(Runnable wake) {
        if (gone) {
            wake.run();
            return () -> {};
        }
        onGone.add(wake);
        return () -> onGone.remove(wake);
    }

    @Override
    public String toString() {
        StringBuilder b =
                new StringBuilder(kind.name().toLowerCase()).append(' ').append(key.key());
        b.append(" owner ").append(ownerId);
        if (kind == Kind.ACQUIRE) {
            b.append(" ttl ").append(ttlMillis);
            b.append(waiting ? " wait " + waitMillis : " no-wait");
            if (requestId != null) {
                b.append(" requestId ").append(requestId);
            }
        }
        if (expectedToken != null) {
            b.append(" fencingToken ").append(expectedToken);
        }
        return b.append(" -> r")
                .append(replica)
                .append(" [")
                .append(tag())
                .append(']')
                .toString();
    }
}

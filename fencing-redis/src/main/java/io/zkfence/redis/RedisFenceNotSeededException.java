package io.zkfence.redis;

import java.io.Serial;
import java.util.Optional;

/**
 * The fence refused a call because it cannot tell which tokens are stale: the floor of the fence
 * key's hash slot is missing, or (with {@link RedisFenceConfig.RestartPolicy#REFUSE_UNTIL_RESEEDED},
 * the default) it was written by an earlier run of the server. Nothing was written.
 *
 * <p>A missing floor means the server never had a seeded fence (call {@link RedisFence#seed(long)}
 * once before the first fenced write) or it lost its data: a restart without persistence, a
 * {@code FLUSHALL}, a failover to a replica without the keys. A floor from an earlier run means the
 * server restarted or failed over since it was seeded, and may have come back with fence records
 * older than what it had accepted (an RDB snapshot, an {@code appendfsync everysec} file, a replica
 * that lagged). Either way a stale holder's token could pass a record that lost its latest
 * advance, so every fenced call is refused until the fence is seeded again with a token issued
 * after the loss: acquire any zkfence lock of the ensemble and pass its token
 * ({@code docs/fencing-redis.md}, "When Redis loses data"). Holders whose tokens are older must
 * then acquire again.
 */
public final class RedisFenceNotSeededException extends RedisFenceException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String seededRunId;
    private final String currentRunId;

    RedisFenceNotSeededException(String fence, String message, String seededRunId, String currentRunId) {
        super(fence, message, false, null);
        this.seededRunId = seededRunId;
        this.currentRunId = currentRunId;
    }

    /**
     * True when the floor is there but was written by another run of the server (a restart or a
     * failover since the seed); false when there is no floor.
     *
     * @return whether the server restarted since the seed
     */
    public boolean serverRestarted() {
        return seededRunId != null;
    }

    /**
     * The run id of the server that was seeded, when the floor is there.
     *
     * @return its {@code run_id}
     */
    public Optional<String> seededRunId() {
        return Optional.ofNullable(seededRunId);
    }

    /**
     * The run id of the server that answered, when the floor is there.
     *
     * @return its {@code run_id}
     */
    public Optional<String> currentRunId() {
        return Optional.ofNullable(currentRunId);
    }
}

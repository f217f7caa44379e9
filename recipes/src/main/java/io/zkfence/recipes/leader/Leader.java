package io.zkfence.recipes.leader;

/**
 * Who leads an election, as ZooKeeper shows it: from {@link LeaderElection#currentLeader()}.
 * A snapshot for diagnostics and routing (which instance to send leader-only requests to); it
 * is stale as soon as it returns, so never use it to decide whether you may write.
 *
 * @param ownerId the leader's lock-client owner id (see {@code LockClientConfig.ownerId})
 * @param term    the leader's term: its fencing token, strictly increasing across leaders
 */
public record Leader(String ownerId, long term) {}

package io.zkfence.samples.demo;

import io.zkfence.lock.LockInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What the demo observed, filled in step by step; a field is null when the story stopped before
 * that step. The {@link Verdict} is drawn from it and from the stores' final state.
 */
final class StoryRecord {

    /** Writes are reported per copy and store; this is one outcome. */
    record Write(String copy, String store, long token, String outcome) {
        static Write of(PodEvent e) {
            return new Write(e.get("copy"), e.get("store"), e.getLong("token"), e.get("outcome"));
        }

        boolean is(Inventory.Copy c, String s) {
            return copy.equals(c.label()) && store.equals(s);
        }
    }

    Long tokenA;
    Long tokenB;
    Duration ttlA;
    Instant frozenAt;
    Instant grantedToBAt;
    String procStateAtGrant;
    LockInfo queueAtGrant;
    Instant resumedAt;
    Instant leaseLostSeenByAAt;
    final List<Write> firstWritesOfA = new ArrayList<>();
    final List<Write> writesOfB = new ArrayList<>();
    final List<Write> staleWritesOfA = new ArrayList<>();
    /** The stores each order writes, once fenced and once unfenced (PostgreSQL, S3 and the extra ones). */
    List<String> stores = List.of("postgres", "s3");

    String failure;
}

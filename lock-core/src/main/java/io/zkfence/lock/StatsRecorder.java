package io.zkfence.lock;

import java.util.concurrent.atomic.LongAdder;

/** Counters behind {@link LockStats}; cheap enough for the acquire path. */
final class StatsRecorder {

    final LongAdder grants = new LongAdder();
    final LongAdder releases = new LongAdder();
    final LongAdder leasesLost = new LongAdder();
    final LongAdder creates = new LongAdder();
    final LongAdder childrenReads = new LongAdder();
    final LongAdder queueChecks = new LongAdder();
    final LongAdder wakeUps = new LongAdder();

    LockStats snapshot() {
        return new LockStats(
                grants.sum(),
                releases.sum(),
                leasesLost.sum(),
                creates.sum(),
                childrenReads.sum(),
                wakeUps.sum(),
                queueChecks.sum());
    }
}

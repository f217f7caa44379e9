package io.zkfence.samples.recipes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.jdbc.JdbcFence;
import io.zkfence.jdbc.JdbcStaleTokenException;
import io.zkfence.lock.LockClient;
import io.zkfence.recipes.leader.LeaderElection;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

class LeaderElectionSampleTest extends RecipeSampleTestBase {

    @Test
    void oneInstanceWritesHeartbeatsUntilItLeavesThenTheNextTakesOverAndTheOldTermIsRejected() {
        LeaderElectionSample.createTables(db.dataSource);
        JdbcFence fence = JdbcFence.create(db.dataSource);
        ScheduledExecutorService a = Executors.newSingleThreadScheduledExecutor();
        ScheduledExecutorService b = Executors.newSingleThreadScheduledExecutor();
        closeLater(a::shutdownNow);
        closeLater(b::shutdownNow);

        LockClient observer = pod("observer");
        LeaderElection first = LeaderElectionSample.join(pod("pod-a"), fence, "pod-a", a);
        eventually().until(first::isLeader);
        assertThat(LeaderElectionSample.leaderInstance(observer)).contains("pod-a");
        LeaderElection second = closeLater(LeaderElectionSample.join(pod("pod-b"), fence, "pod-b", b));
        eventually().until(() -> db.rows("select leader from leader_heartbeat").size() >= 2);
        assertThat(second.isLeader()).isFalse();
        long firstTerm = first.leadership().orElseThrow().term();

        first.close(); // pod-a shuts down: pod-b is elected at once
        eventually().until(second::isLeader);
        assertThat(LeaderElectionSample.leaderInstance(observer)).contains("pod-b");
        long secondTerm = second.leadership().orElseThrow().term();
        eventually()
                .until(() -> db.rows("select leader from leader_heartbeat where leader = 'pod-b'")
                                .size()
                        >= 2);

        assertThat(secondTerm).isGreaterThan(firstTerm);
        List<String> rows = db.rows("select leader, term from leader_heartbeat order by at");
        assertThat(rows).allMatch(r -> r.equals("pod-a|" + firstTerm) || r.equals("pod-b|" + secondTerm));
        // A deposed leader that did not notice (paused, partitioned) writes with its old term: refused.
        JdbcStaleTokenException stale = assertThrows(
                JdbcStaleTokenException.class, () -> LeaderElectionSample.writeHeartbeat(fence, "pod-a", firstTerm));
        assertThat(stale.storedToken()).isEqualTo(secondTerm);
    }
}

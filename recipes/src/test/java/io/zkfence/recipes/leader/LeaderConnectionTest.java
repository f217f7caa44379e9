package io.zkfence.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LeaseSuspendedException;
import io.zkfence.lock.LockClient;
import io.zkfence.recipes.testing.ZooKeeperTestBase;
import io.zkfence.testkit.FreezableProxy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeaderConnectionTest extends ZooKeeperTestBase {

    @Test
    void aLeaderIsSuspendedWhileItsConnectionStallsAndResumesTheSameTermWhenItReturns() {
        FreezableProxy proxy = proxy();
        // A session long enough to outlive the stall: the term survives it. The client notices the
        // stall after two thirds of the session (read timeout), which leaves the last third (about
        // 6.7 s, the most the test servers allow) to thaw and reconnect on a loaded machine.
        LockClient client = clientThrough(proxy, "leader", Duration.ofSeconds(20), Duration.ofSeconds(2));
        RecordingListener events = new RecordingListener();
        LeaderElection election = closeLater(
                LeaderElection.builder(client, "stall").listener(events).build());
        election.start();
        eventually().until(election::isLeader);
        Leadership term = election.leadership().orElseThrow();

        proxy.freeze();
        eventually().until(() -> events.events.size() == 2);
        assertThat(term.lease().state()).isEqualTo(LeaseState.SUSPECT);
        assertThat(election.isLeader()).isFalse();
        assertThrows(LeaseSuspendedException.class, term.lease()::checkValid);

        proxy.thaw();
        eventually().until(election::isLeader);
        eventually().until(() -> events.events.size() == 3);
        assertThat(events.events)
                .isEqualTo(List.of("elected:" + term.term(), "suspended:" + term.term(), "resumed:" + term.term()));
        assertThat(election.leadership()).containsSame(term);
        term.lease().checkValid();
    }
}

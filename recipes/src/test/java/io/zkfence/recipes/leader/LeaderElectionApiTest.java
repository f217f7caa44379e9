package io.zkfence.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.LockClient;
import io.zkfence.recipes.testing.ZooKeeperTestBase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaderElectionApiTest extends ZooKeeperTestBase {

    @Test
    void badSettingsAreRejectedWithTheirNameAndBound() {
        LockClient c = client("c");
        IllegalArgumentException blank = assertThrows(
                IllegalArgumentException.class,
                () -> LeaderElection.builder(c, " ").build());
        assertThat(blank).hasMessageContaining("blank");
        assertThrows(
                IllegalArgumentException.class,
                () -> LeaderElection.builder(c, null).build());
        IllegalArgumentException timeout = assertThrows(
                IllegalArgumentException.class,
                () -> LeaderElection.builder(c, "e")
                        .revokeTimeout(Duration.ZERO)
                        .build());
        assertThat(timeout).hasMessageContaining("revokeTimeout").hasMessageContaining("'e'");
        assertThrows(
                NullPointerException.class, () -> LeaderElection.builder(c, "e").listener(null));
    }

    @Test
    void anElectionStartsOnceAndNotAfterClose() {
        LockClient c = client("c");
        LeaderElection e = LeaderElection.builder(c, "once").build();
        e.start();
        IllegalStateException twice = assertThrows(IllegalStateException.class, e::start);
        assertThat(twice).hasMessageContaining("once");
        e.close();
        e.close(); // idempotent
        assertThrows(IllegalStateException.class, e::start);
        LeaderElection never = LeaderElection.builder(c, "never").build();
        never.close();
        assertThrows(IllegalStateException.class, never::start);
    }

    @Test
    void nobodyLeadsAnElectionNobodyJoined() {
        LeaderElection e =
                closeLater(LeaderElection.builder(client("c"), "empty").build());
        assertThat(e.currentLeader()).isEmpty();
        assertThat(e.isLeader()).isFalse();
        assertThat(e.leadership()).isEmpty();
    }
}

package io.zkfence.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.testkit.EmbeddedEnsemble;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/** LockRegistryLeaderInitiator on ZkfenceLockRegistry: one leader at a time, each with a higher token. */
class LeaderInitiatorTest {

    private static final String ROLE = "settlement-leader";

    /** Records what it was told, and the leader's token read from the lock object. */
    private static final class Recorder implements Candidate {
        final String id;
        final ZkfenceLockRegistry registry;
        final List<Long> grantedTokens = new CopyOnWriteArrayList<>();
        final List<String> events = new CopyOnWriteArrayList<>();

        Recorder(String id, ZkfenceLockRegistry registry) {
            this.id = id;
            this.registry = registry;
        }

        @Override
        public String getRole() {
            return ROLE;
        }

        @Override
        public String getId() {
            return id;
        }

        @Override
        public void onGranted(Context ctx) {
            grantedTokens.add(registry.obtain(ROLE).token().orElseThrow());
            events.add("granted");
        }

        @Override
        public void onRevoked(Context ctx) {
            events.add("revoked");
        }
    }

    @Test
    void oneLeaderAtATimeAndTheSuccessorsTokenIsHigher() {
        try (EmbeddedEnsemble zk = EmbeddedEnsemble.builder().servers(1).start();
                LockClient clientA = LockClient.connect(
                        zk.connectString(),
                        LockClientConfig.builder().ownerId("a").build());
                LockClient clientB = LockClient.connect(
                        zk.connectString(),
                        LockClientConfig.builder().ownerId("b").build())) {
            Recorder a = new Recorder("a", ZkfenceLockRegistry.create(clientA));
            Recorder b = new Recorder("b", ZkfenceLockRegistry.create(clientB));
            LockRegistryLeaderInitiator initiatorA = new LockRegistryLeaderInitiator(a.registry, a);
            LockRegistryLeaderInitiator initiatorB = new LockRegistryLeaderInitiator(b.registry, b);
            initiatorA.start();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> initiatorA.getContext().isLeader());
            initiatorB.start();
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> a.grantedTokens.size() == 1);
            // b keeps trying while a leads (busy-wait tryLock) and never leads at the same time.
            Awaitility.await()
                    .during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> !initiatorB.getContext().isLeader() && b.grantedTokens.isEmpty());

            initiatorA.stop();
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> b.grantedTokens.size() == 1);
            assertThat(a.events).containsExactly("granted", "revoked");
            assertThat(b.grantedTokens.get(0)).isGreaterThan(a.grantedTokens.get(0));
            assertThat(clientB.inspect(ROLE).holder())
                    .get()
                    .satisfies(h -> assertThat(h.token()).isEqualTo(b.grantedTokens.get(0)));

            initiatorB.getContext().yield(); // b steps down: a may take over again
            initiatorA.start();
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> a.grantedTokens.size() == 2);
            assertThat(a.grantedTokens.get(1)).isGreaterThan(b.grantedTokens.get(0));
            initiatorA.stop();
            initiatorB.stop();
        }
    }
}

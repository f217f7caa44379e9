package io.zkfence.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.zkfence.lock.LeaseLostException;
import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import io.zkfence.recipes.testing.TokenCheckedRegister;
import io.zkfence.recipes.testing.ZooKeeperTestBase;
import io.zkfence.testkit.FreezableProxy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeaderFailoverTest extends ZooKeeperTestBase {

    @Test
    void whenTheServerExpiresTheLeadersSessionTheNextCandidateLeadsWithAHigherTermAndTheDeposedLeaderIsFenced() {
        FreezableProxy proxy = proxy();
        LockClient first = clientThrough(proxy, "first", SHORT_SESSION, Duration.ofSeconds(2));
        LockClient second = client("second");
        LockClient third = client("third");
        TokenCheckedRegister resource = new TokenCheckedRegister();

        RecordingListener firstEvents = new RecordingListener();
        LeaderElection a = closeLater(
                LeaderElection.builder(first, "billing").listener(firstEvents).build());
        firstEvents.election = a;
        a.start();
        eventually().until(a::isLeader);
        Leadership deposed = a.leadership().orElseThrow();
        resource.write(deposed.term(), "first's write");

        RecordingListener secondEvents = new RecordingListener();
        RecordingListener thirdEvents = new RecordingListener();
        LeaderElection b = closeLater(
                LeaderElection.builder(second, "billing").listener(secondEvents).build());
        b.start();
        eventually()
                .until(() -> LeaderElection.currentLeader(third, "billing").isPresent()
                        && third.inspect("billing").waiters().size() == 1);
        LeaderElection c = closeLater(
                LeaderElection.builder(third, "billing").listener(thirdEvents).build());
        c.start();
        eventually().until(() -> third.inspect("billing").waiters().size() == 2);

        proxy.freeze(); // the leader's heartbeats stop reaching the server: only the server can end its term

        eventually().until(b::isLeader);
        Leadership successor = b.leadership().orElseThrow();
        assertThat(successor.term()).isGreaterThan(deposed.term());
        assertThat(c.isLeader()).isFalse(); // FIFO: the second candidate in line, not the third
        resource.write(successor.term(), "second's write");

        // The deposed leader, cut off, writes with its old term: the resource refuses it.
        assertThrows(
                TokenCheckedRegister.StaleWriteException.class, () -> resource.write(deposed.term(), "late write"));
        assertThat(resource.accepted())
                .extracting(TokenCheckedRegister.Write::value)
                .containsExactly("first's write", "second's write");

        // The deposed leader is told, in order: suspended, then lost; its term is over for good.
        eventually()
                .until(() -> firstEvents.events.equals(
                        List.of("elected:" + deposed.term(), "suspended:" + deposed.term(), "lost:" + deposed.term())));
        assertThat(deposed.lease().state()).isEqualTo(LeaseState.LOST);
        assertThat(deposed.ended().toCompletableFuture().join()).isEqualTo(LeaseState.LOST);
        // While lost() ran the election still showed the term: its end was being handled.
        assertThat(firstEvents.leadershipDuringLost)
                .singleElement()
                .satisfies(t -> assertThat(t).containsSame(deposed));
        LeaseLostException e = assertThrows(LeaseLostException.class, deposed.lease()::checkValid);
        assertThat(e.token()).hasValue(deposed.term());
        assertThat(a.isLeader()).isFalse();

        // Back on the network it is a candidate again, at the back of the line.
        proxy.thaw();
        eventually().until(() -> third.inspect("billing").waiters().size() == 2);
        assertThat(LeaderElection.currentLeader(third, "billing"))
                .get()
                .isEqualTo(new Leader("second", successor.term()));
        assertThat(third.inspect("billing").waiters())
                .extracting(w -> w.ownerId())
                .containsExactly("third", "first");
        assertThat(secondEvents.events).containsExactly("elected:" + successor.term());
    }

    @Test
    void closingTheLockClientUnderALeaderTellsListenersLostAndEndsTheTermReleasedAsItsStateSays() {
        LockClient leaderClient = client("leader");
        RecordingListener events = new RecordingListener();
        LeaderElection leader = closeLater(
                LeaderElection.builder(leaderClient, "payroll").listener(events).build());
        events.election = leader;
        leader.start();
        eventually().until(leader::isLeader);
        Leadership term = leader.leadership().orElseThrow();
        LeaderElection next = closeLater(LeaderElection.builder(client("next"), "payroll")
                .listener(new RecordingListener())
                .build());
        next.start();

        leaderClient.close(); // releases every lease of the client, the election's among them

        LeaseState end = term.ended().toCompletableFuture().join();
        assertThat(end).isEqualTo(LeaseState.RELEASED).isEqualTo(term.lease().state());
        assertThat(events.events).containsExactly("elected:" + term.term(), "lost:" + term.term());
        assertThat(events.leadershipDuringLost)
                .singleElement()
                .satisfies(t -> assertThat(t).containsSame(term));
        eventually().until(() -> leader.leadership().isEmpty());
        assertThat(leader.isLeader()).isFalse();
        // The lock was released, not left to expire: the next candidate leads at once.
        eventually().until(next::isLeader);
        assertThat(next.leadership().orElseThrow().term()).isGreaterThan(term.term());
    }
}

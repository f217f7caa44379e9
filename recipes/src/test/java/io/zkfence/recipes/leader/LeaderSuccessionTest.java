package io.zkfence.recipes.leader;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.lock.LeaseState;
import io.zkfence.lock.LockClient;
import io.zkfence.recipes.testing.ZooKeeperTestBase;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LeaderSuccessionTest extends ZooKeeperTestBase {

    @Test
    void candidatesAreElectedInTheOrderTheyJoinedWithStrictlyIncreasingTerms() {
        LockClient observer = client("observer");
        List<LeaderElection> candidates = new ArrayList<>();
        List<RecordingListener> listeners = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            RecordingListener l = new RecordingListener();
            LeaderElection e = closeLater(LeaderElection.builder(client("candidate-" + i), "scheduler")
                    .listener(l)
                    .build());
            e.start();
            int joined = i + 1;
            eventually().until(() -> observer.inspect("scheduler").entries().size() == joined);
            candidates.add(e);
            listeners.add(l);
        }
        long previousTerm = 0;
        for (int i = 0; i < 4; i++) {
            LeaderElection leader = candidates.get(i);
            eventually().until(leader::isLeader);
            for (int j = i + 1; j < 4; j++) {
                assertThat(candidates.get(j).isLeader())
                        .as("candidate %d while %d leads", j, i)
                        .isFalse();
            }
            long term = leader.leadership().orElseThrow().term();
            assertThat(term).isGreaterThan(previousTerm);
            assertThat(leader.currentLeader()).contains(new Leader("candidate-" + i, term));
            previousTerm = term;
            leader.close(); // leaves the election: revoked, released, the next one goes
            assertThat(listeners.get(i).events).containsExactly("elected:" + term, "revoked:" + term);
        }
        assertThat(LeaderElection.currentLeader(observer, "scheduler")).isEmpty();
    }

    @Test
    void steppingDownRevokesWhileTheTermIsValidElectsTheNextAndRequeuesAtTheBack() {
        LockClient observer = client("observer");
        RecordingListener aEvents = new RecordingListener();
        RecordingListener bEvents = new RecordingListener();
        LeaderElection a = closeLater(
                LeaderElection.builder(client("a"), "reports").listener(aEvents).build());
        LeaderElection b = closeLater(
                LeaderElection.builder(client("b"), "reports").listener(bEvents).build());
        a.start();
        eventually().until(a::isLeader);
        b.start();
        eventually().until(() -> observer.inspect("reports").waiters().size() == 1);

        Leadership first = a.leadership().orElseThrow();
        LeaseState end = first.stepDown().toCompletableFuture().join();

        assertThat(end).isEqualTo(LeaseState.RELEASED);
        assertThat(aEvents.stateDuringRevoked).containsExactly(LeaseState.HELD); // still leader while revoked() ran
        eventually().until(b::isLeader);
        long second = b.leadership().orElseThrow().term();
        assertThat(second).isGreaterThan(first.term());
        // a is still a candidate, now behind b.
        eventually().until(() -> observer.inspect("reports").waiters().size() == 1);
        assertThat(observer.inspect("reports").waiters())
                .extracting(w -> w.ownerId())
                .containsExactly("a");

        b.leadership().orElseThrow().stepDown();
        eventually().until(a::isLeader);
        long third = a.leadership().orElseThrow().term();
        assertThat(third).isGreaterThan(second);
        // elected() reaches the listeners on the event thread, after isLeader() became true.
        eventually().until(() -> aEvents.events.size() == 3);
        assertThat(aEvents.events)
                .containsExactly("elected:" + first.term(), "revoked:" + first.term(), "elected:" + third);
        assertThat(first.stepDown().toCompletableFuture().join())
                .as("stepping down an ended term")
                .isEqualTo(LeaseState.RELEASED);
        assertThat(a.leadership()).get().extracting(Leadership::term).isEqualTo(third);
    }

    @Test
    void aLoneCandidateThatStepsDownIsElectedAgainWithANewTerm() {
        RecordingListener events = new RecordingListener();
        LeaderElection alone = closeLater(
                LeaderElection.builder(client("alone"), "solo").listener(events).build());
        alone.start();
        eventually().until(alone::isLeader);
        long first = alone.leadership().orElseThrow().term();
        alone.leadership().orElseThrow().stepDown().toCompletableFuture().join();
        eventually()
                .until(() ->
                        alone.isLeader() && alone.leadership().orElseThrow().term() > first);
    }

    @Test
    void closingAWaitingCandidateTakesItOutOfTheLine() {
        LockClient observer = client("observer");
        LeaderElection leader = closeLater(LeaderElection.builder(client("leader"), "line")
                .listener(new RecordingListener())
                .build());
        leader.start();
        eventually().until(leader::isLeader);
        RecordingListener waiterEvents = new RecordingListener();
        LeaderElection waiter = LeaderElection.builder(client("waiter"), "line")
                .listener(waiterEvents)
                .build();
        waiter.start();
        eventually().until(() -> observer.inspect("line").waiters().size() == 1);

        waiter.close();

        eventually().until(() -> observer.inspect("line").waiters().isEmpty());
        leader.close();
        assertThat(LeaderElection.currentLeader(observer, "line")).isEmpty();
        assertThat(waiterEvents.events).isEmpty();
    }

    @Test
    void revokedMayFinishTheLeadersWorkBeforeTheNextCandidateIsElected() throws Exception {
        CountDownLatch revokedEntered = new CountDownLatch(1);
        CountDownLatch finishWork = new CountDownLatch(1);
        LeadershipListener slowToHandOver = new LeadershipListener() {
            @Override
            public void elected(Leadership leadership) {}

            @Override
            public void revoked(Leadership leadership) {
                revokedEntered.countDown();
                try {
                    finishWork.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void lost(Leadership leadership) {}
        };
        LeaderElection a = closeLater(LeaderElection.builder(client("a"), "handover")
                .listener(slowToHandOver)
                .build());
        LeaderElection b = closeLater(LeaderElection.builder(client("b"), "handover")
                .listener(new RecordingListener())
                .build());
        a.start();
        eventually().until(a::isLeader);
        b.start();
        Leadership term = a.leadership().orElseThrow();
        term.stepDown();
        assertThat(revokedEntered.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(a.isLeader()).isTrue();
        assertThat(b.isLeader()).isFalse();
        assertThat(LeaderElection.currentLeader(client("observer"), "handover").map(Leader::ownerId))
                .contains("a");
        finishWork.countDown();
        eventually().until(b::isLeader);
        assertThat(term.lease().state()).isEqualTo(LeaseState.RELEASED);
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheElectionOrTheOtherListeners() {
        RecordingListener after = new RecordingListener();
        LeadershipListener broken = new LeadershipListener() {
            @Override
            public void elected(Leadership leadership) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void lost(Leadership leadership) {
                throw new IllegalStateException("listener bug");
            }
        };
        LeaderElection e = closeLater(LeaderElection.builder(client("c"), "robust")
                .listener(broken)
                .listener(after)
                .build());
        e.start();
        eventually().until(() -> after.events.size() == 1);
        assertThat(e.isLeader()).isTrue();
        Optional<Leadership> term = e.leadership();
        term.orElseThrow().stepDown().toCompletableFuture().join();
        eventually().until(() -> after.events.size() == 3); // revoked, then elected again
    }
}

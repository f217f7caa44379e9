package io.zkfence.recipes.leader;

import io.zkfence.lock.LeaseState;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Records every call as "event:term", the state of the term when revoked() ran and, once told
 * its {@link #election}, what that election's leadership() said while lost() ran.
 */
final class RecordingListener implements LeadershipListener {

    final List<String> events = new CopyOnWriteArrayList<>();
    final List<LeaseState> stateDuringRevoked = new CopyOnWriteArrayList<>();
    final List<Leadership> terms = new CopyOnWriteArrayList<>();
    final List<Optional<Leadership>> leadershipDuringLost = new CopyOnWriteArrayList<>();
    volatile LeaderElection election;

    @Override
    public void elected(Leadership leadership) {
        terms.add(leadership);
        events.add("elected:" + leadership.term());
    }

    @Override
    public void suspended(Leadership leadership) {
        events.add("suspended:" + leadership.term());
    }

    @Override
    public void resumed(Leadership leadership) {
        events.add("resumed:" + leadership.term());
    }

    @Override
    public void revoked(Leadership leadership) {
        stateDuringRevoked.add(leadership.lease().state());
        events.add("revoked:" + leadership.term());
    }

    @Override
    public void lost(Leadership leadership) {
        LeaderElection e = election;
        if (e != null) {
            leadershipDuringLost.add(e.leadership());
        }
        events.add("lost:" + leadership.term());
    }

    /** The term of the latest election, or 0. */
    long lastTerm() {
        return terms.isEmpty() ? 0 : terms.get(terms.size() - 1).term();
    }
}

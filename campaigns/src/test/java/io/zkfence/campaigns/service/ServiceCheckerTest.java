package io.zkfence.campaigns.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.campaigns.Attempt;
import io.zkfence.campaigns.FaultEvent;
import io.zkfence.campaigns.HistoryRow;
import io.zkfence.campaigns.ResourceTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The service campaign's checks find each broken promise of issue 29 from the records a campaign
 * keeps (the workers' logs, the observer's view of the queues), classify it under its promise, and
 * pass a history where the service kept them.
 */
class ServiceCheckerTest {

    private static final String KEY = "faults:res-0";
    private static final String LOCK = "/faults/service/faults/res-0";
    private static final String INC = "100.abc";

    private final List<ServiceLog.Call> calls = new ArrayList<>();
    private final List<ServiceLog.RequestEnd> requests = new ArrayList<>();
    private final List<ServiceLog.Hold> holds = new ArrayList<>();
    private final List<ServiceLog.Write> writes = new ArrayList<>();
    private final List<HistoryRow> history = new ArrayList<>();
    private final List<QueueObserver.Seen> seen = new ArrayList<>();
    private final List<ServiceFaults.Skew> skews = new ArrayList<>();
    private final List<FaultEvent> events =
            new ArrayList<>(List.of(new FaultEvent("replica-kill", "r1", 0, 10, "r1 killed")));

    private static String owner(int n) {
        return "w0." + INC + "." + n;
    }

    private void call(
            int n,
            String op,
            String replica,
            long sent,
            int status,
            String code,
            long token,
            long expiresAt,
            String currentOwner,
            boolean hedge) {
        call(n, op, replica, sent, sent + 5, status, code, token, expiresAt, currentOwner, hedge);
    }

    private void call(
            int n,
            String op,
            String replica,
            long sent,
            long done,
            int status,
            String code,
            long token,
            long expiresAt,
            String currentOwner,
            boolean hedge) {
        calls.add(new ServiceLog.Call(
                "w0",
                INC,
                "t0",
                owner(n),
                "req-" + n,
                KEY,
                op,
                replica,
                hedge,
                sent,
                done,
                status,
                code,
                token,
                expiresAt,
                -1,
                currentOwner,
                null,
                null,
                null,
                0));
    }

    private void granted(int n, long sent, long token, long ttl) {
        call(n, "acquire", "r0", sent, 200, null, token, sent + ttl, null, false);
        requests.add(new ServiceLog.RequestEnd(
                "w0", INC, owner(n), "req-" + n, KEY, ttl, true, 1_000, sent, sent + 5, "granted", token));
    }

    private void held(int n, long token, long from, long to, int writesAccepted) {
        holds.add(new ServiceLog.Hold("w0", INC, owner(n), "req-" + n, KEY, token, from, to, "released"));
        for (int i = 0; i < writesAccepted; i++) {
            String attempt = "w0-" + n + "-" + i;
            writes.add(new ServiceLog.Write(
                    attempt,
                    "w0",
                    INC,
                    "t0",
                    owner(n),
                    KEY,
                    "res-0",
                    token,
                    from + 1 + i,
                    from + 2 + i,
                    Attempt.ACCEPTED,
                    true));
            history.add(new HistoryRow(history.size() + 1, "res-0", token, attempt, history.size() + 1));
        }
    }

    private QueueObserver.Seen entry(String owner, long token, long firstSeen, long lastSeen, long grantedSeen) {
        QueueObserver.Seen s = new QueueObserver.Seen(LOCK + "/e-" + token, LOCK, token, owner, "x", firstSeen);
        s.lastSeen = lastSeen;
        s.grantedSeen = grantedSeen;
        seen.add(s);
        return s;
    }

    private ServiceChecker.Findings check(Set<String> exited) {
        return ServiceChecker.check(new ServiceChecker.Input(
                new ServiceLog.Logs(calls, requests, holds, writes, exited),
                new ResourceTables.Contents(history, Map.of("res-0", (long) history.size())),
                seen,
                List.of(),
                events,
                skews,
                List.of("w0"),
                1,
                10));
    }

    private ServiceChecker.Findings check() {
        return check(Set.of("w0." + INC));
    }

    @Test
    void aServiceThatKeptItsPromisesIsClean() {
        granted(1, 1_000, 10, 5_000);
        held(1, 10, 1_005, 1_200, 2);
        entry(owner(1), 10, 1_010, 1_100, 1_010);
        granted(2, 1_300, 12, 5_000);
        held(2, 12, 1_305, 1_500, 1);
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).isEmpty();
        assertThat(f.orphans()).isEmpty();
        assertThat(f.overlaps()).isEmpty();
        assertThat(f.clean()).isTrue();
    }

    @Test
    void aGrantWhoseLeaseEndedBeforeTheRequestWasSentBreaksTheFirstPromise() {
        // The retry after a lost answer came back 200 with the same lease, 609 ms past its expiry.
        call(1, "acquire", "r1", 2_000, 200, null, 10, 1_391, null, false);
        requests.add(
                new ServiceLog.RequestEnd("w0", INC, owner(1), "req-1", KEY, 1_000, false, 0, 0, 2_005, "granted", 10));
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.LIVE_GRANT)).isOne();
        assertThat(f.findings().get(0).evidence()).contains("609 ms before the request was sent");
    }

    @Test
    void anExpiryWithinTheAnsweringReplicasClockSkewIsNotCalledDead() {
        // r1's clock runs 3 s behind: by its clock the lease had not ended yet.
        skews.add(new ServiceFaults.Skew("r1", 0, 10_000, -3_000));
        call(1, "acquire", "r1", 2_000, 200, null, 10, 1_391, null, false);
        requests.add(
                new ServiceLog.RequestEnd("w0", INC, owner(1), "req-1", KEY, 1_000, false, 0, 0, 2_005, "granted", 10));
        assertThat(check().count(ServiceChecker.Promise.LIVE_GRANT)).isZero();
    }

    @Test
    void aGrantAndA409NamingTheCallerItselfForOneRequestBreakTheSecondPromise() {
        call(1, "acquire", "r0", 1_000, 200, null, 10, 6_000, null, true);
        call(1, "acquire", "r1", 1_000, 409, "LOCK_ALREADY_HELD", 0, 0, owner(1), true);
        requests.add(new ServiceLog.RequestEnd(
                "w0", INC, owner(1), "req-1", KEY, 5_000, false, 0, 1_000, 1_005, "granted", 10));
        holds.add(new ServiceLog.Hold("w0", INC, owner(1), "req-1", KEY, 10, 1_005, 1_200, "released"));
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.ONE_ANSWER)).isOne();
        assertThat(f.findings().get(0).evidence()).contains("a 409 naming the caller itself");
    }

    /** A hedged no-wait acquire: r0 grants it at creation, r1 answers 409 REQUEST_FINISHED; the grant is released. */
    private void grantedAndFinishedByTwoReplicas() {
        call(1, "acquire", "r1", 1_000, 409, "REQUEST_FINISHED", 0, 0, null, true);
        call(1, "acquire", "r0", 1_000, 200, null, 10, 6_000, null, true);
        requests.add(new ServiceLog.RequestEnd(
                "w0", INC, owner(1), "req-1", KEY, 5_000, false, 0, 1_000, 1_005, "finished", 0));
    }

    @Test
    void aGrantAndARequestFinishedForOneRequestBreakTheSecondPromise() {
        grantedAndFinishedByTwoReplicas();
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.ONE_ANSWER)).isOne();
        assertThat(f.findings().get(0).evidence()).contains("ended finished", "token 10");
    }

    @Test
    void aRequestFinishedFromAReplicaWhoseClockWasPastTheLeasesEndIsALeaseEndedEarlyNotASecondAnswer() {
        // r1's clock runs 6 s ahead, more than the 5 s TTL: by its clock r0's fresh lease had ended.
        skews.add(new ServiceFaults.Skew("r1", 0, 10_000, 6_000));
        grantedAndFinishedByTwoReplicas();
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).isEmpty();
        assertThat(f.explained())
                .anySatisfy(line -> assertThat(line)
                        .contains("r1 (clock +6000 ms)", "token 10", "a lease ended early by a skewed clock"));
    }

    @Test
    void aRequestFinishedFromAReplicaWhoseClockWasAheadByLessThanTheLeaseLeftIsStillASecondAnswer() {
        skews.add(new ServiceFaults.Skew("r1", 0, 10_000, 2_000));
        grantedAndFinishedByTwoReplicas();
        assertThat(check().count(ServiceChecker.Promise.ONE_ANSWER)).isOne();
    }

    @Test
    void aNewLeaseForARequestThatWasReleasedBreaksTheThirdPromiseAndIsAnOrphan() {
        granted(1, 1_000, 10, 5_000);
        held(1, 10, 1_005, 1_200, 1);
        // The request held back on a paused replica, delivered after the release: a new entry, granted.
        entry(owner(1), 15, 4_000, 9_000, 4_000);
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.FINISHED_STAYS_FINISHED)).isOne();
        assertThat(f.countedOrphans()).singleElement().satisfies(o -> {
            assertThat(o.fencingToken()).isEqualTo(15);
            assertThat(o.cause()).isEqualTo("finished request granted again");
        });
        assertThat(f.clean()).isFalse();
    }

    @Test
    void aGrantWhoseAnswerWasLostAndWhoseLeaseEndedBeforeTheRetryIsCountedApart() {
        // Granted at 2 000 (the 200 never arrived), the lease ended, the retry answered REQUEST_FINISHED at 9 000.
        requests.add(new ServiceLog.RequestEnd(
                "w0", INC, owner(1), "req-1", KEY, 2_000, true, 5_000, 1_000, 9_000, "finished", 0));
        entry(owner(1), 12, 1_500, 4_000, 2_000);
        ServiceChecker.Findings f = check();
        assertThat(f.orphans())
                .singleElement()
                .satisfies(o -> assertThat(o.cause()).isEqualTo(ServiceChecker.ANSWER_LOST_LEASE_ENDED));
        assertThat(f.countedOrphans()).isEmpty();
        assertThat(f.findings()).isEmpty();
    }

    @Test
    void aLeaseThatEndedBeforeItsStalledReplicaAnswered503AndWhoseRetryWasGrantedIsCountedApart() {
        // Granted at creation at 1 000 for 1 s while its replica stalled; the 503 came at 9 000.
        stalledThen503ThenGrantedOnRetry();
        entry(owner(1), 12, 1_000, 1_500, 1_000).expiresAt = 2_000;
        ServiceChecker.Findings f = check();
        assertThat(f.orphans())
                .singleElement()
                .satisfies(o -> assertThat(o.cause()).isEqualTo(ServiceChecker.ENDED_BEFORE_ANSWERED));
        assertThat(f.countedOrphans()).isEmpty();
        assertThat(f.findings()).isEmpty();
    }

    @Test
    void aLeaseStillLiveWhenItsReplicaAnswered503IsASecondAnswer() {
        stalledThen503ThenGrantedOnRetry();
        entry(owner(1), 12, 1_000, 9_500, 1_000).expiresAt = 9_800;
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.ONE_ANSWER)).isOne();
        assertThat(f.countedOrphans())
                .singleElement()
                .satisfies(o -> assertThat(o.cause()).isEqualTo("second answer"));
    }

    /** An acquire out from 900 to 9 000 on r1, answered 503; its retry on r2 granted token 15 and released. */
    private void stalledThen503ThenGrantedOnRetry() {
        call(1, "acquire", "r1", 900, 9_000, 503, "UNAVAILABLE", 0, 0, null, false);
        call(1, "acquire", "r2", 9_002, 200, null, 15, 10_002, null, false);
        requests.add(new ServiceLog.RequestEnd(
                "w0", INC, owner(1), "req-1", KEY, 1_000, false, 0, 900, 9_010, "granted", 15));
        held(1, 15, 9_010, 9_020, 1);
    }

    @Test
    void aGrantNoWorkerHeardOfBesideA409HeldForTheSameRequestBreaksTheSecondPromise() {
        requests.add(new ServiceLog.RequestEnd(
                "w0", INC, owner(1), "req-1", KEY, 2_000, true, 5_000, 1_000, 9_000, "held", 0));
        entry(owner(1), 12, 1_500, 4_000, 2_000);
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.ONE_ANSWER)).isOne();
        assertThat(f.countedOrphans())
                .singleElement()
                .satisfies(o -> assertThat(o.cause()).isEqualTo("second answer"));
    }

    @Test
    void aWaiterOfAKilledReplicaBlockingItsKeyPastTheLimitBreaksTheFourthPromise() {
        QueueObserver.Seen doomed = entry("doomed-1", 20, 1_000, 60_000, 0);
        doomed.longestBlockedFrom = 5_000;
        doomed.longestBlockedTo = 5_000 + ServiceChecker.DEAD_WAITER_LIMIT_MILLIS + 1;
        QueueObserver.Seen brief = entry("doomed-2", 21, 1_000, 9_000, 0);
        brief.longestBlockedFrom = 5_000;
        brief.longestBlockedTo = 5_000 + ServiceChecker.DEAD_WAITER_LIMIT_MILLIS;
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).singleElement().satisfies(x -> {
            assertThat(x.promise()).isEqualTo(ServiceChecker.Promise.DEAD_WAITER);
            assertThat(x.owner()).isEqualTo("doomed-1");
        });
    }

    @Test
    void aDeadWaiterBlockingPastTheLimitButWithinItOfAZooKeeperLeaderChangeIsExplained() {
        // The crashed replica's session lives on while leaders change: each new leader starts its timeout again.
        QueueObserver.Seen doomed = entry("doomed-1", 20, 1_000, 60_000, 0);
        doomed.longestBlockedFrom = 5_000;
        doomed.longestBlockedTo = 5_000 + ServiceChecker.DEAD_WAITER_LIMIT_MILLIS + 10_000;
        events.add(new FaultEvent("zk-leader-kill", FaultEvent.ENSEMBLE, 15_000, 18_000, "leader killed"));
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).isEmpty();
        assertThat(f.explained())
                .singleElement()
                .satisfies(line -> assertThat(line).contains("doomed-1", "ZooKeeper's last leader change"));
    }

    @Test
    void aDeadWaiterBlockingPastTheLimitCountedFromTheLastLeaderChangeBreaksTheFourthPromise() {
        QueueObserver.Seen doomed = entry("doomed-1", 20, 1_000, 60_000, 0);
        doomed.longestBlockedFrom = 5_000;
        doomed.longestBlockedTo = 15_000 + ServiceChecker.DEAD_WAITER_LIMIT_MILLIS + 1;
        events.add(new FaultEvent("zk-leader-kill", FaultEvent.ENSEMBLE, 15_000, 18_000, "leader killed"));
        events.add(new FaultEvent("zk-follower-kill", FaultEvent.ENSEMBLE, 20_000, 23_000, "follower killed"));
        assertThat(check().count(ServiceChecker.Promise.DEAD_WAITER)).isOne();
    }

    @Test
    void anExpiredLeaseNobodyRemovesBlockingItsKeyPastTheLimitBreaksTheFourthPromise() {
        granted(1, 1_000, 10, 5_000);
        holds.add(new ServiceLog.Hold("w0", INC, owner(1), "req-1", KEY, 10, 1_005, 6_000, "deadline"));
        QueueObserver.Seen lease = entry(owner(1), 10, 1_000, 120_000, 1_000);
        lease.expiresAt = 6_000;
        lease.blockedAs = "expired";
        lease.longestBlockedFrom = 14_000;
        lease.longestBlockedTo = 14_000 + ServiceChecker.DEAD_WAITER_LIMIT_MILLIS + 1;
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).singleElement().satisfies(x -> {
            assertThat(x.promise()).isEqualTo(ServiceChecker.Promise.DEAD_WAITER);
            assertThat(x.evidence()).contains("the lease of " + owner(1), "expired");
        });
    }

    @Test
    void aLeaseOfAWorkerKilledWithItsAcquireOutIsCountedApartNotAsABrokenPromise() {
        entry(owner(7), 30, 1_000, 6_000, 1_000); // no log line of request 7: the worker died before the answer
        ServiceChecker.Findings f = check(Set.of());
        assertThat(f.orphans())
                .singleElement()
                .satisfies(o -> assertThat(o.cause()).isEqualTo(ServiceChecker.KILLED_WORKER));
        assertThat(f.countedOrphans()).isEmpty();
        assertThat(f.findings()).isEmpty();
    }

    @Test
    void twoWorkersBelievingTheyHeldOneKeyAreAnOverlapFencedAtPostgres() {
        granted(1, 1_000, 10, 5_000);
        granted(2, 2_000, 12, 5_000);
        held(2, 12, 2_005, 2_500, 1);
        // Token 10's holder still believed until 3,000 ms; its write after token 12's was rejected.
        holds.add(new ServiceLog.Hold("w0", INC, owner(1), "req-1", KEY, 10, 1_005, 3_000, "released"));
        writes.add(new ServiceLog.Write(
                "w0-1-x", "w0", INC, "t1", owner(1), KEY, "res-0", 10, 2_600, 2_610, Attempt.STALE, true));
        ServiceChecker.Findings f = check();
        assertThat(f.overlaps()).singleElement().satisfies(o -> {
            assertThat(o.lowerToken()).isEqualTo(10);
            assertThat(o.higherToken()).isEqualTo(12);
            assertThat(o.lowerRejected()).isOne();
        });
        assertThat(f.pg().violations()).isEmpty();
    }
}

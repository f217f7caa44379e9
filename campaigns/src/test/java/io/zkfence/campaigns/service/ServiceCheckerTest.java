package io.zkfence.campaigns.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.campaigns.Attempt;
import io.zkfence.campaigns.FaultEvent;
import io.zkfence.campaigns.HistoryRow;
import io.zkfence.campaigns.ResourceTables;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The service campaign's checks find each broken promise of issue 29, and two leases answered valid
 * at once, from the records a campaign keeps (the workers' logs, the observer's view of the queues),
 * classify it under its promise, and pass a history where the service kept them. The strict checks
 * of issue 35 each have a case the checks before them missed: an overlap put down to a skew window,
 * a validity outliving its lease while {@code validForMillis} was above 0, a losing hedged copy's
 * caller-gone path, a dead waiter's block put down to a leader kill.
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
    private final List<QueueSnapshot> snapshots = new ArrayList<>();
    private final List<Long> polls = new ArrayList<>();
    private final Map<Long, Long> evictions = new HashMap<>();
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
        call(owner(n), op, replica, sent, done, status, code, token, expiresAt, -1, currentOwner, hedge, 0);
    }

    private void call(
            String owner,
            String op,
            String replica,
            long sent,
            long done,
            int status,
            String code,
            long token,
            long expiresAt,
            long validFor,
            String currentOwner,
            boolean hedge,
            long lease) {
        calls.add(new ServiceLog.Call(
                "w0",
                INC,
                "t0",
                owner,
                "req-" + owner,
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
                validFor,
                currentOwner,
                null,
                null,
                null,
                lease));
    }

    /** An acquire of request {@code n} answered 200 by {@code replica}: valid from its send for {@code validFor}. */
    private void grant(int n, String replica, long sent, long token, long validFor) {
        call(owner(n), "acquire", replica, sent, sent + 5, 200, null, token, sent + validFor, validFor, null, false, 0);
    }

    /** A renewal of request {@code n}'s lease answered 200. */
    private void renewed(int n, String replica, long sent, long token, long validFor) {
        call(owner(n), "renew", replica, sent, sent + 5, 200, null, 0, sent + validFor, validFor, null, false, token);
    }

    /** Request {@code n}'s caller sends the release of its lease. */
    private void released(int n, long sent, long token) {
        call(owner(n), "release", "r2", sent, sent + 5, 200, null, 0, 0, -1, null, false, token);
    }

    /** Request {@code n}'s end as its worker logged it (no wait: {@code waiting} false, {@code waitMillis} 0). */
    private void ended(
            int n, long ttl, boolean waiting, long waitMillis, long startAt, long endAt, String result, long token) {
        requests.add(new ServiceLog.RequestEnd(
                "w0", INC, owner(n), "req-" + n, KEY, ttl, waiting, waitMillis, startAt, endAt, result, token));
    }

    /** Request 1 waited and was granted token 10 by {@code replica} at 1,000, valid for 5 s. */
    private void grantedAfterWaitBy(String replica) {
        grant(1, replica, 1_000, 10, 5_000);
        ended(1, 5_000, true, 1_000, 1_000, 1_005, "granted", 10);
    }

    /** The entry's removal at {@code at} (its record {@code as}), missed first by the read at {@code goneSeen}. */
    private static void removed(QueueObserver.Seen e, long at, String as, long goneSeen) {
        e.removedAt = at;
        e.removedAs = as;
        e.goneSeen = goneSeen;
    }

    private void granted(int n, long sent, long token, long ttl) {
        grant(n, "r0", sent, token, ttl);
        ended(n, ttl, true, 1_000, sent, sent + 5, "granted", token);
    }

    /** Request {@code n} holds its lease from {@code from}, writes, and sends its release at {@code to}. */
    private void held(int n, long token, long from, long to, int writesAccepted) {
        released(n, to, token);
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

    /** The observer's reads every 500 ms from {@code from} to {@code to}. */
    private void reads(long from, long to) {
        for (long t = from; t <= to; t += 500) {
            polls.add(t);
        }
    }

    /** The queue at each read of [from, to] (reads made with {@link #reads}). */
    private void queue(long from, long to, QueueSnapshot.Slot... slots) {
        for (long t = from; t <= to; t += 500) {
            snapshots.add(new QueueSnapshot(t, LOCK, List.of(slots)));
        }
    }

    private static QueueSnapshot.Slot lease(String owner, long token, long expiresAt) {
        return new QueueSnapshot.Slot(token, owner, true, null, true, expiresAt);
    }

    private static QueueSnapshot.Slot tied(String owner, long token, String session, boolean live) {
        return new QueueSnapshot.Slot(token, owner, false, session, live, 900_000);
    }

    /** A waiting acquire of {@code owner} out on {@code replica} from {@code sent} to {@code done}. */
    private void waiting(String owner, String replica, long sent, long done) {
        call(owner, "acquire", replica, sent, done, 0, "timeout", 0, 0, -1, null, false, 0);
    }

    private ServiceChecker.Findings check(Set<String> exited) {
        return ServiceChecker.check(new ServiceChecker.Input(
                new ServiceLog.Logs(calls, requests, holds, writes, exited),
                new ResourceTables.Contents(history, Map.of("res-0", (long) history.size())),
                seen,
                snapshots,
                polls,
                evictions,
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

    /** The checks count one orphan apart, for {@code cause}, and find no broken promise. */
    private static void assertCountedApart(ServiceChecker.Findings f, String cause) {
        assertThat(f.orphans())
                .singleElement()
                .satisfies(o -> assertThat(o.cause()).isEqualTo(cause));
        assertThat(f.countedOrphans()).isEmpty();
        assertThat(f.findings()).isEmpty();
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
        ended(1, 1_000, false, 0, 0, 2_005, "granted", 10);
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.LIVE_GRANT)).isOne();
        assertThat(f.findings().get(0).evidence()).contains("609 ms before the request was sent");
    }

    @Test
    void anExpiryWithinTheAnsweringReplicasClockSkewIsNotCalledDead() {
        // r1's clock runs 3 s behind: by its clock the lease had not ended yet.
        skews.add(new ServiceFaults.Skew("r1", 0, 10_000, -3_000));
        call(1, "acquire", "r1", 2_000, 200, null, 10, 1_391, null, false);
        ended(1, 1_000, false, 0, 0, 2_005, "granted", 10);
        assertThat(check().count(ServiceChecker.Promise.LIVE_GRANT)).isZero();
    }

    @Test
    void aGrantAndA409NamingTheCallerItselfForOneRequestBreakTheSecondPromise() {
        call(1, "acquire", "r0", 1_000, 200, null, 10, 6_000, null, true);
        call(1, "acquire", "r1", 1_000, 409, "LOCK_ALREADY_HELD", 0, 0, owner(1), true);
        ended(1, 5_000, false, 0, 1_000, 1_005, "granted", 10);
        holds.add(new ServiceLog.Hold("w0", INC, owner(1), "req-1", KEY, 10, 1_005, 1_200, "released"));
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.ONE_ANSWER)).isOne();
        assertThat(f.findings().get(0).evidence()).contains("a 409 naming the caller itself");
    }

    /** A hedged no-wait acquire: r0 grants it at creation, r1 answers 409 REQUEST_FINISHED; the grant is released. */
    private void grantedAndFinishedByTwoReplicas() {
        call(1, "acquire", "r1", 1_000, 409, "REQUEST_FINISHED", 0, 0, null, true);
        call(1, "acquire", "r0", 1_000, 200, null, 10, 6_000, null, true);
        ended(1, 5_000, false, 0, 1_000, 1_005, "finished", 0);
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
        ended(1, 2_000, true, 5_000, 1_000, 9_000, "finished", 0);
        entry(owner(1), 12, 1_500, 4_000, 2_000);
        assertCountedApart(check(), ServiceChecker.ANSWER_LOST_LEASE_ENDED);
    }

    @Test
    void aLeaseThatEndedBeforeItsStalledReplicaAnswered503AndWhoseRetryWasGrantedIsCountedApart() {
        // Granted at creation at 1 000 for 1 s while its replica stalled; the 503 came at 9 000.
        stalledThen503ThenGrantedOnRetry();
        entry(owner(1), 12, 1_000, 1_500, 1_000).expiresAt = 2_000;
        assertCountedApart(check(), ServiceChecker.ENDED_BEFORE_ANSWERED);
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
        ended(1, 1_000, false, 0, 900, 9_010, "granted", 15);
        held(1, 15, 9_010, 9_020, 1);
    }

    @Test
    void aGrantNoWorkerHeardOfBesideA409HeldForTheSameRequestBreaksTheSecondPromise() {
        ended(1, 2_000, true, 5_000, 1_000, 9_000, "held", 0);
        entry(owner(1), 12, 1_500, 4_000, 2_000);
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.ONE_ANSWER)).isOne();
        assertThat(f.countedOrphans())
                .singleElement()
                .satisfies(o -> assertThat(o.cause()).isEqualTo("second answer"));
    }

    // ---- promise 5 (issue 35, part 4.1): two leases answered valid at once, the measured skew the only allowance

    @Test
    void twoLeasesAnsweredValidAtOnceWithoutAnySkewAreAFinding() {
        // Token 10 answered valid until 6,000 and used until its release at 4,000; token 12 granted and heard at 3,005.
        // The checks before issue 35 listed this as an overlap and found nothing.
        granted(1, 1_000, 10, 5_000);
        held(1, 10, 1_005, 4_000, 1);
        granted(2, 3_000, 12, 5_000);
        held(2, 12, 3_005, 3_500, 1);
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.NO_OVERLAP)).isOne();
        assertThat(f.overlaps()).singleElement().satisfies(o -> {
            assertThat(o.finding()).isTrue();
            assertThat(o.millis()).isEqualTo(495);
            assertThat(o.allowance()).isEqualTo(Clocks.MEASUREMENT_MILLIS);
        });
        // The same moment seen from token 10's answer: it outlived its lease, ended by the next grant.
        assertThat(f.count(ServiceChecker.Promise.LIVE_GRANT)).isOne();
        assertThat(f.clean()).isFalse();
    }

    @Test
    void anOverlapWithinTheMeasuredSkewOfTheReplicasInvolvedIsNoFinding() {
        // r1's clock runs 4 s ahead: by it, token 10 (answered by r0, unskewed) ended up to 4 s early.
        skews.add(new ServiceFaults.Skew("r1", 0, 60_000, 4_000));
        granted(1, 1_000, 10, 5_000);
        held(1, 10, 1_005, 6_000, 0);
        writes.add(new ServiceLog.Write(
                "w0-1-x", "w0", INC, "t0", owner(1), KEY, "res-0", 10, 3_500, 3_510, Attempt.STALE, true));
        grant(2, "r1", 3_000, 12, 5_000);
        held(2, 12, 3_005, 7_000, 1);
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).isEmpty();
        assertThat(f.overlaps()).singleElement().satisfies(o -> {
            assertThat(o.finding()).isFalse();
            assertThat(o.millis()).isEqualTo(2_995);
            assertThat(o.allowance()).isEqualTo(4_000 + Clocks.MEASUREMENT_MILLIS);
            assertThat(o.lowerRejected()).isOne();
            assertThat(o.why()).contains("by r0 (its clock 0 ms)", "the largest replica clock meanwhile +4000 ms");
        });
    }

    @Test
    void anOverlapWhoseLowerLeaseWasAnsweredAfterTheHigherWasGrantedIsJudgedByTheLowerLeasesClocks() {
        // r0's clock runs 6 s ahead. Token 10's waiting entry, written by r1 (unskewed), ended by r0's
        // clock 6 s early: r0 granted token 12 (heard at 3,290) while r1, by its clock, answered token 10
        // at the head (heard at 3,300, valid until 8,227). The stretch that began first is token 12's,
        // but the lease a skew ended early is token 10's: the allowance is r0's clock against r1's.
        skews.add(new ServiceFaults.Skew("r0", 0, 60_000, 6_000));
        call(owner(1), "acquire", "r1", 1_000, 3_300, 200, null, 10, 8_227, 7_227, null, false, 0);
        ended(1, 5_000, true, 2_676, 1_000, 3_300, "granted", 10);
        held(1, 10, 3_300, 3_460, 0);
        call(owner(2), "acquire", "r0", 3_250, 3_290, 200, null, 12, 14_252, 5_002, null, false, 0);
        ended(2, 5_000, false, 0, 3_250, 3_290, "granted", 12);
        held(2, 12, 3_290, 3_390, 1);
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).isEmpty();
        assertThat(f.overlaps()).singleElement().satisfies(o -> {
            assertThat(o.finding()).isFalse();
            assertThat(o.millis()).isEqualTo(90);
            assertThat(o.allowance()).isEqualTo(6_000 + Clocks.MEASUREMENT_MILLIS);
            assertThat(o.why()).contains("token 10 was answered valid until 8227 by r1 (its clock 0 ms)");
        });
    }

    @Test
    void anOverlapWithinTheSkewOfTheClockThatConfirmedTheLowerLeaseIsNoFinding() {
        // A 15-minute run: request 1 hedged to r0 and r1 (6 s behind). r0 answered its entry unconfirmed
        // (valid until 3,159); r1's copy, at the head too, confirmed it by its clock before the worker
        // cancelled it: an expiry 6 s lower in number, which r0 then took for passed and granted token
        // 12 (heard at 1,334) while token 10's holder still used it (released at 1,431).
        skews.add(new ServiceFaults.Skew("r1", 0, 60_000, -6_000));
        call(owner(1), "acquire", "r0", 908, 1_180, 200, null, 10, 3_159, 2_251, null, true, 0);
        call(owner(1), "acquire", "r1", 908, 1_184, 0, ServiceCalls.CANCELLED, 0, 0, -1, null, true, 0);
        ended(1, 2_000, true, 5_336, 908, 1_195, "granted", 10);
        held(1, 10, 1_196, 1_431, 1);
        call(owner(2), "acquire", "r0", 1_165, 1_334, 200, null, 12, 22_307, 21_142, null, false, 0);
        ended(2, 21_000, true, 1_894, 1_165, 1_335, "granted", 12);
        held(2, 12, 1_335, 1_600, 1);
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).isEmpty();
        assertThat(f.overlaps()).singleElement().satisfies(o -> {
            assertThat(o.finding()).isFalse();
            assertThat(o.millis()).isEqualTo(97);
            assertThat(o.allowance()).isEqualTo(6_000 + Clocks.MEASUREMENT_MILLIS);
            assertThat(o.why())
                    .contains("by r0 (its clock 0 ms; its expiry may have been written by a clock at -6000 ms)");
        });
    }

    @Test
    void anOverlapLongerThanTheSkewIsAFindingThoughItFallsInASkewWindow() {
        // The checks before issue 35 put any overlap in a skew window down to the skew; r2 runs only 2 s ahead.
        skews.add(new ServiceFaults.Skew("r2", 0, 60_000, 2_000));
        granted(1, 1_000, 10, 5_000);
        held(1, 10, 1_005, 6_000, 0);
        grant(2, "r2", 3_000, 12, 5_000);
        held(2, 12, 3_005, 7_000, 1);
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.NO_OVERLAP)).isOne();
        assertThat(f.overlaps())
                .singleElement()
                .satisfies(o -> assertThat(o.allowance()).isEqualTo(2_000 + Clocks.MEASUREMENT_MILLIS));
    }

    @Test
    void aSkewedReplicaThatAnsweredTheValidityItselfAllowsNoOverlap() {
        // r1 (4 s ahead) answered token 10's validity by its own clock: no replica could end that lease early.
        skews.add(new ServiceFaults.Skew("r1", 0, 60_000, 4_000));
        grantedAfterWaitBy("r1");
        held(1, 10, 1_005, 6_000, 0);
        granted(2, 5_000, 12, 5_000);
        held(2, 12, 5_005, 5_400, 1);
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.NO_OVERLAP)).isOne();
        assertThat(f.overlaps()).singleElement().satisfies(o -> {
            assertThat(o.millis()).isEqualTo(395);
            assertThat(o.allowance()).isEqualTo(Clocks.MEASUREMENT_MILLIS);
        });
    }

    @Test
    void aRenewalExtendsTheAnsweredValidityAndARenewalHeardTooLateDoesNot() {
        // Valid until 3,000 by the grant, until 6,700 by the renewal sent at 1,700; token 12 heard at 4,005.
        grant(1, "r0", 1_000, 10, 2_000);
        renewed(1, "r1", 1_700, 10, 5_000);
        released(1, 6_000, 10);
        grant(2, "r0", 4_000, 12, 5_000);
        released(2, 7_000, 12);
        assertThat(check().overlaps()).singleElement().satisfies(o -> {
            assertThat(o.from()).isEqualTo(4_005);
            assertThat(o.to()).isEqualTo(6_000);
            assertThat(o.finding()).isTrue();
        });

        // The same renewal heard only after the grant's validity had ended: the lease was not valid in between.
        calls.clear();
        grant(1, "r0", 1_000, 10, 2_000);
        call(owner(1), "renew", "r1", 2_900, 5_000, 200, null, 0, 7_900, 5_000, null, false, 10);
        released(1, 5_500, 10);
        grant(2, "r0", 3_100, 12, 5_000);
        released(2, 3_500, 12);
        ServiceChecker.Findings f = check();
        assertThat(f.overlaps()).isEmpty();
        // That renewal answered a lease whose next holder had been granted already: a dead lease renewed.
        assertThat(f.count(ServiceChecker.Promise.LIVE_GRANT)).isOne();
    }

    @Test
    void aForcedReleaseEndsALeaseOnPurposeFromItsEviction() {
        granted(1, 1_000, 10, 5_000); // its holder paused: no release
        evictions.put(10L, 2_000L);
        granted(2, 2_500, 12, 5_000);
        held(2, 12, 2_505, 3_000, 1);
        ServiceChecker.Findings f = check();
        assertThat(f.overlaps()).isEmpty();
        assertThat(f.findings()).isEmpty();
    }

    // ---- promise 1 (issue 35, part 4.2): each answer's validity against the lease's real end in ZooKeeper

    @Test
    void aValidityThatOutlastsItsEntrysRemovalBreaksTheFirstPromise() {
        // validForMillis 5,000 (the checks before issue 35 looked only for 0); the entry went at 3,000.
        granted(1, 1_000, 10, 5_000);
        removed(entry(owner(1), 10, 1_002, 2_500, 1_002), 3_000, "EXPIRED", 3_400);
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).singleElement().satisfies(x -> {
            assertThat(x.promise()).isEqualTo(ServiceChecker.Promise.LIVE_GRANT);
            assertThat(x.token()).isEqualTo(10);
            assertThat(x.evidence())
                    .contains("valid for 5000 ms", "3000 ms before that", "its entry was removed (EXPIRED");
        });
    }

    @Test
    void aRemovalEarlierThanTheValidityByLessThanTheSkewOfAReplicaAheadIsNoFinding() {
        skews.add(new ServiceFaults.Skew("r1", 0, 60_000, 4_000));
        granted(1, 1_000, 10, 5_000);
        removed(entry(owner(1), 10, 1_002, 2_500, 1_002), 3_000, "EXPIRED", 3_400);
        assertThat(check().findings()).isEmpty();
    }

    /** r1, 6 s ahead, grants token 10 by its clock; r0, unskewed, renews it at 1,700; released at 6,500. */
    private void grantedByR1AheadRenewedByR0() {
        skews.add(new ServiceFaults.Skew("r1", 0, 60_000, 6_000));
        grantedAfterWaitBy("r1");
        renewed(1, "r0", 1_700, 10, 5_000);
        released(1, 6_500, 10);
    }

    @Test
    void aRemovalByAReplicaAheadOfTheOneThatRenewedIsNoFindingForTheGrantAnsweredByIt() {
        // r1 runs 6 s ahead and answered the grant by its clock (valid until 6,000 in true time); r0,
        // unskewed, renewed at 1,700, which wrote an expiresAt 6 s lower in number; r1 then took it for
        // expired and removed the entry at 3,000. The skew between the two writers allows it.
        grantedByR1AheadRenewedByR0();
        removed(entry(owner(1), 10, 1_002, 2_500, 1_002), 3_000, "EXPIRED", 3_400);
        assertThat(check().count(ServiceChecker.Promise.LIVE_GRANT)).isZero();
    }

    @Test
    void anExpiresAtWrittenByALaterRenewalIsReadByTheRenewersClock() {
        // r1 (6 s ahead) answered the grant; r0 (unskewed) renewed to 6,700, which ZooKeeper then held:
        // by r0's clock that is true time, later than the grant's answered validity.
        grantedByR1AheadRenewedByR0();
        QueueObserver.Seen e = entry(owner(1), 10, 1_002, 6_400, 1_002);
        e.states.add(new QueueObserver.State(1_800, 6_400, true, 6_700));
        assertThat(check().count(ServiceChecker.Promise.LIVE_GRANT)).isZero();
    }

    @Test
    void anExpiresAtLoweredBelowTheAnsweredValidityWithoutSkewBreaksTheFirstPromise() {
        // The counterpart on unskewed clocks: ZooKeeper held 4,000 after a grant answered valid until 6,000.
        grantedAfterWaitBy("r1");
        released(1, 6_500, 10);
        QueueObserver.Seen e = entry(owner(1), 10, 1_002, 6_400, 1_002);
        e.states.add(new QueueObserver.State(1_100, 6_400, true, 4_000));
        assertThat(check().findings())
                .singleElement()
                .satisfies(x -> assertThat(x.evidence()).contains("ZooKeeper held its expiresAt at 4000"));
    }

    @Test
    void aReleaseThatLandedFromAKilledWorkerEndsItsLeaseThoughItWasNeverLogged() {
        // Token 10's holder sent its release and was killed before logging it; the release landed at
        // 3,000 (a RELEASED record: only the holder has the lockToken) and token 12 was granted at 3,200.
        granted(1, 1_000, 10, 5_000);
        removed(entry(owner(1), 10, 1_002, 2_500, 1_002), 3_000, "RELEASED", 3_400);
        granted(2, 3_200, 12, 5_000);
        held(2, 12, 3_205, 4_000, 1);
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.LIVE_GRANT)).isZero();
        assertThat(f.count(ServiceChecker.Promise.NO_OVERLAP)).isZero();
    }

    @Test
    void aRemovalAfterTheHolderSentItsReleaseIsNoFinding() {
        granted(1, 1_000, 10, 5_000);
        held(1, 10, 1_005, 2_000, 1);
        removed(entry(owner(1), 10, 1_002, 1_900, 1_002), 2_003, "RELEASED", 2_400);
        assertThat(check().findings()).isEmpty();
    }

    @Test
    void aReleaseInFlightWhenItsWorkerWasKilledEndsItsLeaseAtTheHoldsEnd() {
        // The 30-minute run at e1b4565 (seed 20261129): w0 logged its hold of token 266287972360 as
        // released at 03:58:34.688, sent its release and was killed 71 ms later, before the answer
        // (so no release line); the entry was never read by the observer, and the next waiter was
        // granted at 03:58:34.977. Here: token 10 released at 1,200 that way, token 12 granted at 1,305.
        granted(1, 1_000, 10, 5_000);
        holds.add(new ServiceLog.Hold("w0", INC, owner(1), "req-1", KEY, 10, 1_005, 1_200, "released"));
        granted(2, 1_300, 12, 5_000);
        held(2, 12, 1_305, 2_000, 1);
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.LIVE_GRANT)).isZero();
        assertThat(f.count(ServiceChecker.Promise.NO_OVERLAP)).isZero();
    }

    @Test
    void aHoldThatEndedAtItsDeadlineIsNoReleaseSentAtThatTime() {
        // A hold ended at its deadline is logged with the deadline's time, before its release is
        // sent: it does not end the answered validity, so a next grant inside it is still a finding.
        granted(1, 1_000, 10, 5_000);
        holds.add(new ServiceLog.Hold("w0", INC, owner(1), "req-1", KEY, 10, 1_005, 1_200, "deadline"));
        granted(2, 1_300, 12, 5_000);
        held(2, 12, 1_305, 2_000, 1);
        assertThat(check().count(ServiceChecker.Promise.LIVE_GRANT)).isOne();
    }

    @Test
    void aValidityThatOutlastsTheSessionItsUnconfirmedLeaseHungOnBreaksTheFirstPromise() {
        granted(1, 1_000, 10, 5_000);
        entry(owner(1), 10, 1_002, 4_500, 0).sessionEndedSeen = 4_000;
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).singleElement().satisfies(x -> {
            assertThat(x.promise()).isEqualTo(ServiceChecker.Promise.LIVE_GRANT);
            assertThat(x.evidence()).contains("tied to its replica's session, found ended");
        });
    }

    @Test
    void anExpiresAtInZooKeeperShorterThanTheAnsweredValidityBreaksTheFirstPromise() {
        granted(1, 1_000, 10, 5_000);
        QueueObserver.Seen e = entry(owner(1), 10, 1_100, 3_000, 1_100);
        e.states.add(new QueueObserver.State(1_100, 3_000, true, 4_000));
        ServiceChecker.Findings f = check();
        assertThat(f.findings())
                .singleElement()
                .satisfies(x -> assertThat(x.evidence())
                        .contains(
                                "ZooKeeper held its expiresAt at 4000",
                                // the trail a CI log needs to judge it: the lease's calls and reads
                                "calls: acquire@r0 sent 1000 done 1005 200 expiresAt 6000 validFor 5000;",
                                "reads: 1100-3000 confirmed 4000;"));
    }

    @Test
    void anExpiresAtReadOnlyBeforeARenewalIsNotHeldAgainstTheRenewal() {
        grant(1, "r0", 1_000, 10, 2_000);
        renewed(1, "r1", 2_000, 10, 5_000);
        released(1, 2_600, 10);
        QueueObserver.Seen e = entry(owner(1), 10, 1_100, 2_500, 1_100);
        e.states.add(new QueueObserver.State(1_100, 1_900, true, 3_000));
        e.states.add(new QueueObserver.State(2_100, 2_500, true, 7_000));
        assertThat(check().findings()).isEmpty();
    }

    @Test
    void aGrantNobodyHeardOfToTheNextHolderEndsTheLeaseBeforeItsValidity() {
        granted(1, 1_000, 10, 5_000); // its holder paused: no release
        entry(owner(7), 12, 2_800, 4_000, 3_000); // granted to a worker killed with its acquire out
        ServiceChecker.Findings f = check(Set.of());
        assertThat(f.overlaps()).isEmpty(); // nobody heard of token 12
        assertThat(f.findings()).singleElement().satisfies(x -> {
            assertThat(x.promise()).isEqualTo(ServiceChecker.Promise.LIVE_GRANT);
            assertThat(x.evidence()).contains("the next holder (token 12) was granted");
        });
    }

    // ---- issue 35, part 4.3: the hedging workers cancel the losing copy

    /** Request 1 hedged: r0 grants token 10, and r1's copy is cancelled once r0 answered. */
    private void hedgedGrantWithCancelledCopy() {
        call(owner(1), "acquire", "r0", 1_000, 1_005, 200, null, 10, 6_000, 5_000, null, true, 0);
        call(owner(1), "acquire", "r1", 1_000, 1_006, 0, ServiceCalls.CANCELLED, 0, 0, -1, null, true, 0);
        ended(1, 5_000, true, 1_000, 1_000, 1_005, "granted", 10);
    }

    @Test
    void aHedgedCopyCancelledOnceTheOtherWasAnsweredIsNoAnswer() {
        hedgedGrantWithCancelledCopy();
        held(1, 10, 1_005, 1_300, 1);
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).isEmpty();
        assertThat(f.clean()).isTrue();
    }

    /**
     * The 30-minute run at d52f69a, token 176093659387: a waiting acquire hedged to r2 (5 s ahead)
     * and r1 (5 s behind). r2 queued the entry and, woken at the head, answered it unconfirmed by
     * its clock (read at 10,180 in true time, so until 20,180 on r2's clock, valid 5,175 ms from the
     * arrival); r1's copy, at the head too, confirmed it with r1's clock at 10,190 in true time (5,190
     * on its clock, plus the TTL and the 1 s slack: 11,190), and was cancelled once r2's answer was
     * heard. ZooKeeper's 11,190 is r1's clock: 16,190 in true time, after the 15,175 the answer said
     * (read by r2's clock, the one answer heard, it was 6,190: 4 s before the holder's release).
     */
    private void hedgedGrantConfirmedByTheOtherCopy(long r1Offset) {
        skews.add(new ServiceFaults.Skew("r2", 0, 60_000, 5_000));
        if (r1Offset != 0) {
            skews.add(new ServiceFaults.Skew("r1", 0, 60_000, r1Offset));
        }
        call(owner(1), "acquire", "r2", 10_000, 10_200, 200, null, 10, 20_180, 5_175, null, true, 0);
        call(owner(1), "acquire", "r1", 10_000, 10_201, 0, ServiceCalls.CANCELLED, 0, 0, -1, null, true, 0);
        requests.add(new ServiceLog.RequestEnd(
                "w0", INC, owner(1), "req-1", KEY, 5_000, true, 2_000, 10_000, 10_201, "granted", 10));
        held(1, 10, 10_201, 15_000, 1);
        QueueObserver.Seen e = entry(owner(1), 10, 10_450, 14_950, 10_450);
        e.states.add(new QueueObserver.State(10_450, 14_950, true, 11_190));
        e.goneSeen = 15_450;
        e.removedAt = 15_010;
        e.removedAs = "RELEASED";
    }

    @Test
    void anExpiresAtWrittenByTheCancelledHedgedCopysReplicaIsReadByThatReplicasClock() {
        hedgedGrantConfirmedByTheOtherCopy(-5_000);
        assertThat(check().count(ServiceChecker.Promise.LIVE_GRANT)).isZero();
    }

    @Test
    void anExpiresAtTooLowForEveryClockThatMayHaveWrittenItStillBreaksTheFirstPromise() {
        // The same 11,190 with r1 unskewed: by the lowest clock that may have written it, the lease
        // ended 3.8 s before the holder's release.
        hedgedGrantConfirmedByTheOtherCopy(0);
        assertThat(check().findings())
                .singleElement()
                .satisfies(x -> assertThat(x.evidence()).contains("ZooKeeper held its expiresAt at 11190"));
    }

    /**
     * Both copies of a hedged acquire answered 200 within milliseconds, before the worker could cancel
     * either (a ZooKeeper election had held both, as in a CI run of the short campaign): r2 (5 s
     * ahead) from its unconfirmed entry, valid 5,175 ms from the send (until 15,175 in true time);
     * r1 (unskewed), whose copy was sent a millisecond earlier, by confirming the entry at 10,190 with
     * its clock: 16,190, which ZooKeeper then held. That expiry is r1's: by r2's clock it would have
     * ended at 11,190, 4 s before r2's answer said.
     */
    @Test
    void anExpiresAtWrittenByTheOtherCopyOfAHedgedAcquireIsReadByItsClockThoughItWasSentFirst() {
        skews.add(new ServiceFaults.Skew("r2", 0, 60_000, 5_000));
        call(owner(1), "acquire", "r1", 9_999, 10_195, 200, null, 10, 15_190, 5_190, null, true, 0);
        call(owner(1), "acquire", "r2", 10_000, 10_200, 200, null, 10, 20_180, 5_175, null, true, 0);
        requests.add(new ServiceLog.RequestEnd(
                "w0", INC, owner(1), "req-1", KEY, 5_000, true, 2_000, 9_999, 10_200, "granted", 10));
        held(1, 10, 10_200, 15_000, 1);
        QueueObserver.Seen e = entry(owner(1), 10, 10_450, 14_950, 10_450);
        e.states.add(new QueueObserver.State(10_450, 14_950, true, 16_190));
        removed(e, 15_010, "RELEASED", 15_450);
        assertThat(check().count(ServiceChecker.Promise.LIVE_GRANT)).isZero();
    }

    @Test
    void aCancelledCopysCallerGonePathRemovingTheOtherCopysGrantBreaksTheFirstPromise() {
        // r1's copy was closed once r0 answered; r1, acting on its own copy of the entry, deleted it bare
        // (no finished record: the first read without it, at 1,500, bounds the removal).
        hedgedGrantWithCancelledCopy();
        held(1, 10, 1_005, 4_000, 1);
        entry(owner(1), 10, 1_002, 1_002, 1_002).goneSeen = 1_500;
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).singleElement().satisfies(x -> {
            assertThat(x.promise()).isEqualTo(ServiceChecker.Promise.LIVE_GRANT);
            assertThat(x.evidence()).contains("the first read that missed it");
        });
    }

    // ---- promise 4 (issue 35, part 4.4): a block explained only by the sessions in its chain

    /** doomed-1 waits on r1 behind the holder; r1 is killed at 2,000; w0's request 2 waits on r0 behind it. */
    private void doomedWaiterAhead(long sessionEnds, long blockedUntil) {
        reads(0, 60_000);
        call("doomed-1", "acquire", "r1", 500, 2_100, 0, "io", 0, 0, -1, null, false, 0);
        requests.add(new ServiceLog.RequestEnd(
                "campaign", "0", "doomed-1", "req-d", KEY, 5_000, true, 60_000, 500, 2_000, "abandoned", 0));
        events.add(new FaultEvent("replica-kill-while-waiting", "r1", 2_000, 4_000, "r1 SIGKILL"));
        waiting(owner(2), "r0", 1_000, 59_000);
        queue(
                2_500,
                Math.min(sessionEnds - 500, blockedUntil),
                tied("doomed-1", 20, "s1", true),
                tied(owner(2), 21, "s0", true));
        if (blockedUntil >= sessionEnds) {
            queue(sessionEnds, blockedUntil, tied("doomed-1", 20, "s1", false), tied(owner(2), 21, "s0", true));
        }
    }

    @Test
    void aDoomedWaiterBlocksItsKeyUntilItsSessionsRealEndAndIsThenRemoved() {
        // r1's session really ended at 19,000 (a leader change in between started its timeout again).
        events.add(new FaultEvent("zk-leader-kill", FaultEvent.ENSEMBLE, 6_000, 9_000, "leader killed"));
        doomedWaiterAhead(19_000, 19_000);
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).isEmpty();
        assertThat(f.blocks()).singleElement().satisfies(b -> {
            assertThat(b.millis()).isEqualTo(16_500);
            assertThat(b.unexplained()).isZero();
        });
        assertThat(f.explained())
                .singleElement()
                .satisfies(line -> assertThat(line).contains("doomed-1", "tied to session s1, found ended at 19000"));
    }

    @Test
    void aBlockLongPastItsChainsSessionEndBreaksTheFourthPromiseWhateverLeaderKillsCameBetween() {
        // The session ended at 15,000, the entry stood until 40,000: 25 s past it. The checks before issue 35 let
        // any leader kill explain a block that ended within 20 s of it (here one at 25,000).
        events.add(new FaultEvent("zk-leader-kill", FaultEvent.ENSEMBLE, 25_000, 28_000, "leader killed"));
        doomedWaiterAhead(15_000, 40_000);
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).singleElement().satisfies(x -> {
            assertThat(x.promise()).isEqualTo(ServiceChecker.Promise.DEAD_WAITER);
            assertThat(x.owner()).isEqualTo(owner(2));
            assertThat(x.evidence()).contains("22000 ms of it after", "3000 ms of leader election not counted");
        });
    }

    /** The queue in [from, to]: doomed-1 on session s1, doomed-2 on s2, then request 3 waiting on r0's live s0. */
    private void doomedChain(long from, long to, boolean s1Live, boolean s2Live) {
        queue(
                from,
                to,
                tied("doomed-1", 20, "s1", s1Live),
                tied("doomed-2", 21, "s2", s2Live),
                tied(owner(3), 22, "s0", true));
    }

    @Test
    void aBlockIsExplainedByASessionFurtherUpItsChain() {
        // doomed-1's session ended at 5,000, but doomed-2 behind it, on another killed replica, lived until 15,000:
        // the key was blocked by doomed-2 however soon doomed-1 went.
        reads(0, 30_000);
        waiting(owner(3), "r0", 1_000, 29_000);
        doomedChain(2_000, 4_500, true, true);
        doomedChain(5_000, 15_000, false, true);
        doomedChain(15_500, 15_500, false, false);
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).isEmpty();
        assertThat(f.blocks())
                .singleElement()
                .satisfies(b -> assertThat(b.chainEnd()).isEqualTo(15_500));
    }

    @Test
    void anExpiredLeaseNobodyRemovesAheadOfAWaiterThatCanActBreaksTheFourthPromise() {
        reads(0, 30_000);
        granted(1, 1_000, 10, 5_000); // its worker killed while holding: no release
        waiting(owner(2), "r0", 2_000, 29_000);
        queue(2_000, 20_000, lease(owner(1), 10, 6_000), tied(owner(2), 12, "s0", true));
        ServiceChecker.Findings f = check();
        assertThat(f.count(ServiceChecker.Promise.DEAD_WAITER)).isOne();
        assertThat(f.blocks()).singleElement().satisfies(b -> {
            assertThat(b.from()).isEqualTo(6_000); // until then its holder's answered validity held it
            assertThat(b.unexplained()).isEqualTo(20_000 - 6_000 - Clocks.MEASUREMENT_MILLIS);
        });
    }

    @Test
    void aWaiterWhoseReplicaIsPausedCannotActAndIsNotBlocked() {
        reads(0, 30_000);
        granted(1, 1_000, 10, 5_000);
        waiting(owner(2), "r1", 2_000, 29_000);
        events.add(new FaultEvent("replica-pause", "r1", 1_500, 25_000, "r1 SIGSTOP"));
        queue(2_000, 20_000, lease(owner(1), 10, 6_000), tied(owner(2), 12, "s1", true));
        ServiceChecker.Findings f = check();
        assertThat(f.blocks()).isEmpty();
        assertThat(f.findings()).isEmpty();
    }

    @Test
    void aLeaderElectionAfterTheChainEndedIsNotCountedAgainstTheBlock() {
        reads(0, 30_000);
        granted(1, 1_000, 10, 5_000);
        waiting(owner(2), "r0", 2_000, 29_000);
        events.add(new FaultEvent("zk-leader-kill", FaultEvent.ENSEMBLE, 6_500, 10_500, "leader killed"));
        queue(2_000, 13_000, lease(owner(1), 10, 6_000), tied(owner(2), 12, "s0", true));
        ServiceChecker.Findings f = check();
        assertThat(f.findings()).isEmpty();
        assertThat(f.blocks()).singleElement().satisfies(b -> {
            assertThat(b.electing()).isEqualTo(4_000);
            assertThat(b.unexplained()).isEqualTo(13_000 - 6_000 - Clocks.MEASUREMENT_MILLIS - 4_000);
        });
    }

    @Test
    void aLeaseOfAWorkerKilledWithItsAcquireOutIsCountedApartNotAsABrokenPromise() {
        entry(owner(7), 30, 1_000, 6_000, 1_000); // no log line of request 7: the worker died before the answer
        assertCountedApart(check(Set.of()), ServiceChecker.KILLED_WORKER);
    }

    // ---- the clocks

    @Test
    void aSkewIsMeasuredFromTheSkewedReplicasFreshAnswers() {
        skews.add(new ServiceFaults.Skew("r1", 0, 60_000, 4_000));
        for (int n = 1; n <= 3; n++) {
            long sent = n * 10_000;
            // A no-wait grant by r1: expiresAt is r1's clock (4,003 ms ahead, say) plus the 5 s TTL.
            call(
                    owner(n),
                    "acquire",
                    "r1",
                    sent,
                    sent + 4,
                    200,
                    null,
                    10 + n,
                    sent + 2 + 4_003 + 5_000,
                    5_000,
                    null,
                    false,
                    0);
            ended(n, 5_000, false, 0, sent, sent + 4, "granted", 10 + n);
            released(n, sent + 100, 10 + n);
        }
        Clocks clocks = Clocks.of(new ServiceLog.Logs(calls, requests, holds, writes, Set.of()), skews);
        assertThat(clocks.windows()).singleElement().satisfies(w -> {
            assertThat(w.measured()).isEqualTo(4_003);
            assertThat(w.samples()).isEqualTo(3);
            assertThat(w.uncertainty()).isEqualTo(2);
        });
        assertThat(clocks.offsetOf("r1", 30_000)).isEqualTo(4_003);
        assertThat(clocks.offsetOf("r1", 61_000)).isZero();
        assertThat(clocks.offsetOf("r0", 30_000)).isZero();
        // Answered by r0 (unskewed), judged while r1 ran 4,003 ± 2 ms ahead.
        AnsweredLeases.Answer byR0 =
                new AnsweredLeases.Answer(KEY, 20, owner(9), "acquire", "r0", 29_995, 30_000, 5_000, 34_995, 29_997);
        assertThat(clocks.allowance(byR0, 29_000, 31_000)).isEqualTo(4_005 + Clocks.MEASUREMENT_MILLIS);
    }

    @Test
    void aSkewIsMeasuredFromEachAnswersArrivalNotFromAnExpiryAnotherClockWrote() {
        // r1 runs 5 s behind. Each renewal through it kept the later expiry an unskewed replica's
        // confirmation wrote (its TTL and 1 s of slack), and answered it counted on r1's clock: valid
        // for 11 s. Taken for r1's clock plus the TTL, that expiry put r1 at +1 s (the 15-minute run
        // at f9cb1f0 measured +964 ms for a replica 5 s behind); less validForMillis, it is the
        // request's arrival on r1's clock.
        skews.add(new ServiceFaults.Skew("r1", 0, 60_000, -5_000));
        for (int n = 1; n <= 3; n++) {
            long sent = n * 10_000;
            long arrivalOnR1 = sent + 2 - 5_000;
            long kept = sent + 2 + 5_000 + 1_000;
            call(owner(n), "renew", "r1", sent, sent + 4, 200, null, 0, kept, kept - arrivalOnR1, null, false, 10 + n);
            ended(n, 5_000, true, 1_000, sent - 100, sent + 4, "granted", 10 + n);
        }
        Clocks clocks = Clocks.of(new ServiceLog.Logs(calls, requests, holds, writes, Set.of()), skews);
        assertThat(clocks.windows()).singleElement().satisfies(w -> {
            assertThat(w.measured()).isEqualTo(-5_000);
            assertThat(w.samples()).isEqualTo(3);
        });
    }

    @Test
    void aGrantHeardAfterItsReplicaRestartedSkewedIsJudgedByTheClockThatAnsweredIt() {
        // The 30-minute run at 0dbb05e: r0 granted token 10 unskewed, its answer held by r0's proxy;
        // r0 was restarted 5 s ahead (confirming the lease as it stopped: expiresAt 9,000), and the
        // held answer was heard after that. Its expiresAt less its validForMillis (1,003) is the
        // request's arrival on an unskewed clock: ZooKeeper's 9,000 is true time, past the 8,000
        // the answer said, not 4,000 as read by r0's new clock.
        skews.add(new ServiceFaults.Skew("r0", 3_000, 60_000, 5_000));
        call(owner(1), "acquire", "r0", 1_000, 6_000, 200, null, 10, 8_003, 7_000, null, false, 0);
        ended(1, 5_000, true, 6_000, 1_000, 6_000, "granted", 10);
        released(1, 7_900, 10);
        QueueObserver.Seen e = entry(owner(1), 10, 1_100, 7_800, 2_900);
        e.states.add(new QueueObserver.State(2_900, 7_800, true, 9_000));
        removed(e, 7_905, "RELEASED", 8_300);
        assertThat(check().findings()).isEmpty();
    }
}

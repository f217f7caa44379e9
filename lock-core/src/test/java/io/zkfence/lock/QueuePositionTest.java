package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueuePositionTest {

    private static final String A = "q-AAAAAAAAAAAAAAAAAAlock-";
    private static final String B = "q-BBBBBBBBBBBBBBBBBBlock-";
    private static final String C = "q-CCCCCCCCCCCCCCCCCClock-";

    private static QueueNode node(String name) {
        return QueueNode.parse(name).orElseThrow();
    }

    @Test
    void theFirstEntryIsTheHead() {
        QueuePosition p = QueuePosition.of(List.of(B + "0000000002", A + "0000000001"), node(A + "0000000001"));
        assertThat(p.kind()).isEqualTo(QueuePosition.Kind.HEAD);
        assertThat(p.predecessor()).isNull();
    }

    @Test
    void aWaiterWatchesTheEntryRightAheadAndKnowsWhetherItIsTheHead() {
        List<String> kids = List.of(C + "0000000007", A + "0000000003", B + "0000000005");
        QueuePosition second = QueuePosition.of(kids, node(B + "0000000005"));
        assertThat(second.kind()).isEqualTo(QueuePosition.Kind.WAITING);
        assertThat(second.predecessor().name()).isEqualTo(A + "0000000003");
        assertThat(second.predecessorIsHead()).isTrue();

        QueuePosition third = QueuePosition.of(kids, node(C + "0000000007"));
        assertThat(third.predecessor().name()).isEqualTo(B + "0000000005");
        assertThat(third.predecessorIsHead()).isFalse();
    }

    @Test
    void aWaiterRemembersTheNearestSixteenEntriesAheadAndWhetherTheyReachTheHead() {
        List<String> kids = new ArrayList<>();
        for (int seq = 40; seq >= 1; seq--) { // any order: the children come unsorted
            kids.add((seq % 2 == 0 ? A : B) + String.format("%010d", seq));
        }
        kids.add("leases");
        QueuePosition last = QueuePosition.of(kids, node(A + "0000000040"));
        Ahead ahead = last.ahead();
        for (int seq = 39; seq >= 24; seq--) {
            assertThat(ahead.predecessor().sequence()).isEqualTo(seq);
            ahead = ahead.withoutPredecessor();
        }
        assertThat(ahead.isEmpty()).isTrue();
        assertThat(ahead.isClear()).as("23 entries before those 16").isFalse();

        QueuePosition early = QueuePosition.of(kids, node(B + "0000000017"));
        ahead = early.ahead();
        for (int i = 0; i < 16; i++) {
            ahead = ahead.withoutPredecessor();
        }
        assertThat(ahead.isClear())
                .as("16 entries ahead: the window reaches the head")
                .isTrue();
    }

    @Test
    void aNodeMissingFromTheChildrenIsAbsent() {
        QueuePosition p = QueuePosition.of(List.of(A + "0000000001"), node(B + "0000000002"));
        assertThat(p.kind()).isEqualTo(QueuePosition.Kind.ABSENT);
    }

    @Test
    void childrenThatAreNotQueueEntriesAreIgnored() {
        QueuePosition p =
                QueuePosition.of(List.of("leases", "q-short-0000000001", B + "0000000002"), node(B + "0000000002"));
        assertThat(p.kind()).isEqualTo(QueuePosition.Kind.HEAD);
    }

    @Test
    void aCuratorMutexNodeAheadIsWaitedFor() {
        String curator = "_c_1b7c1f35-9f0c-4b9e-9d8e-3e1d9f1f2a10-lock-0000000004";
        QueuePosition p = QueuePosition.of(List.of(curator, B + "0000000005"), node(B + "0000000005"));
        assertThat(p.kind()).isEqualTo(QueuePosition.Kind.WAITING);
        assertThat(p.predecessor().foreign()).isTrue();
    }

    @Test
    void orderFollowsSerialArithmeticPastTheSequenceWrap() {
        // 2147483647 then -2147483648: the negative one was created after.
        List<String> kids = List.of(B + "-2147483648", A + "2147483647");
        assertThat(QueuePosition.of(kids, node(A + "2147483647")).kind()).isEqualTo(QueuePosition.Kind.HEAD);
        assertThat(QueuePosition.of(kids, node(B + "-2147483648")).predecessor().name())
                .isEqualTo(A + "2147483647");
    }

    @Test
    void theQueueListsEntriesInGrantOrder() {
        List<QueueNode> queue =
                QueuePosition.queue(List.of(C + "0000000009", "other", A + "0000000001", B + "0000000004"));
        assertThat(queue).extracting(QueueNode::sequence).containsExactly(1, 4, 9);
        assertThat(QueuePosition.anyEntry(List.of("other"))).isFalse();
        assertThat(QueuePosition.anyEntry(List.of("other", A + "0000000001"))).isTrue();
    }
}

package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.zookeeper.common.PathUtils;
import org.junit.jupiter.api.Test;

class QueueNodeTest {

    private static final String GUID = new GuidSource().next();

    @Test
    void parsesGuidAndSequenceOfAQueueNode() {
        QueueNode n = QueueNode.parse("q-" + GUID + "-0000000042").orElseThrow();
        assertThat(n.guid()).isEqualTo(GUID);
        assertThat(n.sequence()).isEqualTo(42);
    }

    @Test
    void parsesNegativeSequencesAfterTheCounterWrapped() {
        // ZooKeeper formats the suffix with %010d: "-000000005", and 11 characters below -999999999.
        for (int seq : new int[] {-5, -999_999_999, Integer.MIN_VALUE, Integer.MIN_VALUE + 5}) {
            String name = "q-" + GUID + "-" + String.format("%010d", seq);
            assertThat(QueueNode.parse(name)).as(name).map(QueueNode::sequence).contains(seq);
        }
    }

    @Test
    void guidsAreShortUniqueAndSafeInAZnodeName() {
        GuidSource one = new GuidSource();
        GuidSource other = new GuidSource();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            for (String guid : new String[] {one.next(), other.next()}) {
                assertThat(guid).hasSize(QueueNode.GUID_LENGTH).matches("[A-Za-z0-9_-]+");
                assertThat(seen.add(guid)).as("unique: %s", guid).isTrue();
            }
        }
        String name = QueueNode.createName(one.next()) + "0000000001";
        PathUtils.validatePath("/l/" + name);
        assertThat(QueueNode.parse(name)).isPresent();
    }

    @Test
    void curatorMutexNodesAreForeignEntriesOrderedByTheirSequence() {
        QueueNode plain = QueueNode.parse("lock-0000000001").orElseThrow();
        QueueNode protectedNode = QueueNode.parse("_c_0f8fad5b-d9cb-469f-a165-70867728950e-lock-0000000042")
                .orElseThrow();
        QueueNode negative = QueueNode.parse("lock--2147483647").orElseThrow();
        assertThat(plain.foreign()).isTrue();
        assertThat(plain.sequence()).isEqualTo(1);
        assertThat(protectedNode.foreign()).isTrue();
        assertThat(protectedNode.sequence()).isEqualTo(42);
        assertThat(negative.sequence()).isEqualTo(-2147483647);
        assertThat(plain.guid()).isEmpty();
    }

    @Test
    void zkfenceNodeNamesEndTheWayCuratorOrdersThem() {
        String name = QueueNode.createName(new GuidSource().next()) + "0000000017";
        // Curator's StandardLockInternalsDriver.fixForSorting: the part after the last "lock-".
        assertThat(name.substring(name.lastIndexOf("lock-") + "lock-".length())).isEqualTo("0000000017");
        QueueNode parsed = QueueNode.parse(name).orElseThrow();
        assertThat(parsed.foreign()).isFalse();
        assertThat(parsed.sequence()).isEqualTo(17);
    }

    @Test
    void childrenOfNeitherKindAreIgnored() {
        assertThat(QueueNode.parse("q-0f8fad5b-d9cb-469f-a165-70867728950e-0000000001"))
                .isEmpty();
        assertThat(QueueNode.parse("lock-00000000x1")).isEmpty();
        assertThat(QueueNode.parse("lease-0000000001")).isEmpty();
        assertThat(QueueNode.parse("lock-")).isEmpty();
        assertThat(QueueNode.parse("q-" + GUID + "-00000000x1")).isEmpty();
        assertThat(QueueNode.parse("q-" + GUID + "-000000001")).isEmpty();
    }

    @Test
    void queueOrderIsSequenceOrder() {
        List<QueueNode> nodes = new ArrayList<>(List.of(node(7), node(3), node(5)));
        nodes.sort(QueueNode.ORDER);
        assertThat(nodes).extracting(QueueNode::sequence).containsExactly(3, 5, 7);
    }

    @Test
    void queueOrderStaysRightAcrossTheSignedWrapOfTheSequence() {
        // The holder was created at Integer.MAX_VALUE - 1; the counter then wrapped.
        List<QueueNode> nodes = new ArrayList<>(List.of(
                node(Integer.MIN_VALUE + 1),
                node(Integer.MAX_VALUE),
                node(Integer.MIN_VALUE),
                node(Integer.MAX_VALUE - 1)));
        nodes.sort(QueueNode.ORDER);
        assertThat(nodes)
                .extracting(QueueNode::sequence)
                .containsExactly(Integer.MAX_VALUE - 1, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE + 1);
    }

    private static QueueNode node(int sequence) {
        return new QueueNode("q-" + GUID + "-" + sequence, sequence, GUID);
    }
}

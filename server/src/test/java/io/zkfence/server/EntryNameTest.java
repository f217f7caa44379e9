package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class EntryNameTest {

    private static final String LEGACY_TOKEN = "0123456789abcdef0123456789abcdef";
    private static final String LEGACY_REQUEST = "fedcba9876543210";

    @Test
    void anEntryNameOfThisProtocolRoundTripsThroughItsParts() {
        EntryName name = EntryName.of("a1b2c3d4e5f6", "q0123456789abcdef", 42);

        assertThat(name.node()).isEqualTo("e-a1b2c3d4e5f6-q0123456789abcdef-0000000042");
        assertThat(EntryName.parse(name.node())).contains(name);
        assertThat(name.legacy()).isFalse();
        assertThat(name.hasRequestId()).isTrue();
        assertThat(name.requestNode()).isEqualTo("r-q0123456789abcdef");
        assertThat(EntryName.of("a1b2c3d4e5f6", "n0123456789abcdef", 7).hasRequestId())
                .isFalse();
    }

    @Test
    void aPreviousProtocolNameWithCuratorsProtectionMarkParsesLikeOneWithout() {
        String bare = "e-" + LEGACY_TOKEN + "-" + LEGACY_REQUEST + "-0000000042";
        String marked = "_c_3f2b8a4e-1d2c-4b5a-9e8f-7a6b5c4d3e2f-" + bare;

        EntryName fromMarked = EntryName.parse(marked).orElseThrow();
        EntryName fromBare = EntryName.parse(bare).orElseThrow();
        assertThat(fromMarked.id()).isEqualTo(LEGACY_TOKEN).isEqualTo(fromBare.id());
        assertThat(fromMarked.request()).isEqualTo(LEGACY_REQUEST);
        assertThat(fromMarked.sequence()).isEqualTo(42);
        assertThat(fromMarked.legacy()).isTrue();
        assertThat(fromMarked.requestNode()).isNull();
    }

    @Test
    void requestCompanionsAndOtherChildrenAreNotEntries() {
        assertThat(EntryName.parse("r-q0123456789abcdef")).isEmpty();
        assertThat(EntryName.parse("lock-0000000001")).isEmpty();
        assertThat(EntryName.parse("e-" + LEGACY_TOKEN + "-" + LEGACY_REQUEST + "-notanumber"))
                .isEmpty();
        assertThat(EntryName.parse("_c_short-e-" + LEGACY_TOKEN + "-" + LEGACY_REQUEST + "-0000000001"))
                .isEmpty();
    }

    @Test
    void theQueueIsOrderedBySequenceAcrossTheCountersWrapAroundWithBothProtocolsMixed() {
        String beforeWrap = "e-" + LEGACY_TOKEN + "-" + LEGACY_REQUEST + "-2147483647";
        String afterWrap = "e-a1b2c3d4e5f6-n0123456789abcdef--2147483648";
        String earlier = "e-a1b2c3d4e5f6-q0123456789abcdef-2147483000";
        List<EntryName> queue = EntryName.inQueueOrder(
                List.of(afterWrap, "r-q0123456789abcdef", "lock-0000000007", beforeWrap, earlier));

        assertThat(queue).extracting(EntryName::node).containsExactly(earlier, beforeWrap, afterWrap);
        assertThat(EntryName.of("a1b2c3d4e5f6", "n0123456789abcdef", Integer.MIN_VALUE)
                        .node())
                .isEqualTo(afterWrap);
    }
}

package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class EntryTest {

    private static final String TOKEN = "0123456789abcdef0123456789abcdef";
    private static final String REQUEST = "fedcba9876543210";

    @Test
    void aNameWithCuratorsProtectionMarkParsesLikeOneWithout() {
        String bare = "e-" + TOKEN + "-" + REQUEST + "-0000000042";
        String marked = "_c_3f2b8a4e-1d2c-4b5a-9e8f-7a6b5c4d3e2f-" + bare;

        assertThat(Entry.parseName(marked))
                .hasValueSatisfying(parts -> assertThat(parts).containsExactly("e", TOKEN, REQUEST, "0000000042"));
        assertThat(Entry.parseName(bare))
                .hasValueSatisfying(parts -> assertThat(parts).containsExactly("e", TOKEN, REQUEST, "0000000042"));
    }

    @Test
    void otherChildrenAreNotEntries() {
        assertThat(Entry.parseName("lock-0000000001")).isEmpty();
        assertThat(Entry.parseName("e-" + TOKEN + "-" + REQUEST + "-notanumber"))
                .isEmpty();
        assertThat(Entry.parseName("_c_short-e-" + TOKEN + "-" + REQUEST + "-0000000001"))
                .isEmpty();
    }

    @Test
    void theQueueIsOrderedBySequenceAcrossTheCountersWrapAround() {
        String beforeWrap = "e-" + TOKEN + "-" + REQUEST + "-2147483647";
        String afterWrap = "_c_3f2b8a4e-1d2c-4b5a-9e8f-7a6b5c4d3e2f-e-" + TOKEN + "-" + REQUEST + "--2147483648";
        String earlier = "e-" + TOKEN + "-" + REQUEST + "-2147483000";
        assertThat(Entry.inQueueOrder(List.of(afterWrap, "lock-0000000007", beforeWrap, earlier)))
                .containsExactly(earlier, beforeWrap, afterWrap);
    }
}

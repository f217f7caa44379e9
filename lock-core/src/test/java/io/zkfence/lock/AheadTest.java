package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class AheadTest {

    private static QueueNode entry(int sequence) {
        return QueueNode.parse("q-AAAAAAAAAAAAAAAAAAlock-" + String.format("%010d", sequence))
                .orElseThrow();
    }

    /** Entries with sequences {@code from..to}, oldest first. */
    private static List<QueueNode> entries(int from, int to) {
        return IntStream.rangeClosed(from, to).mapToObj(AheadTest::entry).toList();
    }

    @Test
    void aWindowThatReachedTheHeadIsClearOnceEveryEntryInItIsGone() {
        Ahead ahead = Ahead.of(entries(1, 3), true);
        assertThat(ahead.predecessor()).isEqualTo(entry(3));
        ahead = ahead.withoutPredecessor().withoutPredecessor();
        assertThat(ahead.predecessor()).isEqualTo(entry(1));
        assertThat(ahead.predecessorIsHead()).isTrue();
        assertThat(ahead.isClear()).isFalse();
        assertThat(ahead.withoutPredecessor().isClear()).isTrue();
    }

    @Test
    void aWindowShortOfTheHeadIsUsedUpWithoutBeingClear() {
        Ahead ahead = Ahead.of(entries(5, 6), false);
        assertThat(ahead.predecessorIsHead()).isFalse();
        ahead = ahead.withoutPredecessor().withoutPredecessor();
        assertThat(ahead.isEmpty()).isTrue();
        assertThat(ahead.isClear())
                .as("entries older than the window may still be there")
                .isFalse();
        assertThrows(IllegalStateException.class, ahead::predecessor);
    }

    @Test
    void aRecordNamingThePredecessorThatWentClearsEverythingAheadOfIt() {
        Ahead ahead = Ahead.of(entries(5, 20), false).withoutPredecessor();
        assertThat(ahead.releasedThrough(entry(20).name()).isClear()).isTrue();
    }

    @Test
    void aRecordNamingAnOlderEntryClearsItAndEveryEntryBeforeItOnly() {
        Ahead ahead = Ahead.of(entries(5, 20), false)
                .withoutPredecessor()
                .releasedThrough(entry(17).name());
        assertThat(ahead.isClear()).isFalse();
        assertThat(ahead.predecessor()).isEqualTo(entry(19));
        ahead = ahead.withoutPredecessor();
        assertThat(ahead.predecessor()).isEqualTo(entry(18));
        assertThat(ahead.predecessorIsHead()).as("nothing before 18 is left").isTrue();
        assertThat(ahead.withoutPredecessor().isClear()).isTrue();
    }

    @Test
    void aRecordNamingAnEntryOutsideTheWindowTellsNothing() {
        Ahead ahead = Ahead.of(entries(5, 20), false).withoutPredecessor();
        assertThat(ahead.releasedThrough(entry(4).name())).isSameAs(ahead);
        assertThat(ahead.releasedThrough("not-a-queue-node")).isSameAs(ahead);
        assertThat(ahead.predecessor()).isEqualTo(entry(19));
    }

    @Test
    void aRecordNamingAnEntryAlreadyKnownGoneClearsEverythingOlderThanIt() {
        // 20 went without a record, 19 was probed and watched; a record for 20 appears later: 20
        // was granted after all, so 19 (older) cannot be there any more.
        Ahead ahead = Ahead.of(entries(5, 20), false).withoutPredecessor();
        assertThat(ahead.releasedThrough(entry(20).name()).isClear()).isTrue();
    }

    @Test
    void aWindowHoldsOneToSixteenEntries() {
        assertThrows(IllegalArgumentException.class, () -> Ahead.of(List.of(), true));
        assertThrows(IllegalArgumentException.class, () -> Ahead.of(entries(1, Ahead.WINDOW + 1), true));
    }
}

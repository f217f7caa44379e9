package io.zkfence.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Redis Cluster's slot function as Redis documents it, and the fence's keys in the right slots. */
class FenceKeysTest {

    private final FenceKeys keys = new FenceKeys("zkfence:");

    @Test
    void slotsAreCrc16OfTheKeyOrOfItsHashTag() {
        // The CRC16 check value Redis's cluster spec gives, and its CLUSTER KEYSLOT examples.
        assertThat(Slots.crc16("123456789".getBytes(), 0, 9)).isEqualTo(0x31C3);
        assertThat(Slots.of("somekey")).isEqualTo(11058);
        assertThat(Slots.of("foo{hash_tag}")).isEqualTo(2515).isEqualTo(Slots.of("hash_tag"));
        assertThat(Slots.of("{user1000}.following")).isEqualTo(Slots.of("{user1000}.followers"));
        assertThat(Slots.of("foo{}{bar}")).isEqualTo(Slots.crc16("foo{}{bar}".getBytes(), 0, 10) % 16384);
        assertThat(Slots.of("foo{{bar}}zap")).isEqualTo(Slots.of("{bar"));
        assertThat(Slots.of("foo{bar}{zap}")).isEqualTo(Slots.of("bar"));
    }

    @Test
    void everySlotHasAFloorInThatSlot() {
        Set<String> floors = new HashSet<>();
        for (int slot = 0; slot < Slots.COUNT; slot++) {
            String floor = keys.floor(slot);
            assertThat(Slots.of(floor)).as("slot of %s", floor).isEqualTo(slot);
            floors.add(floor);
        }
        assertThat(floors).hasSize(Slots.COUNT);
        assertThat(keys.floor(0)).startsWith("zkfence:floor:{");
    }

    @Test
    void aFenceRecordIsInItsFenceKeysSlot() {
        Random random = new Random(7);
        for (int i = 0; i < 10_000; i++) {
            String name = randomName(random);
            if (!Slots.hasHashTag(name) && name.indexOf('}') >= 0) {
                continue; // refused, see BadInputTest
            }
            String record = keys.record(name, "test");
            assertThat(Slots.of(record)).as("slot of the record of %s", name).isEqualTo(Slots.of(name));
        }
    }

    @Test
    void aFenceKeyWithAHashTagKeepsItInItsRecordAndOneWithoutGetsItselfAsTheTag() {
        assertThat(keys.record("inventory:{sku-1}", "test")).isEqualTo("zkfence:fence:inventory:{sku-1}");
        assertThat(keys.record("orders/17", "test")).isEqualTo("zkfence:fence:{orders/17}");
        assertThat(keys.record("a{b", "test")).isEqualTo("zkfence:fence:{a{b}");
    }

    private static String randomName(Random random) {
        List<String> parts = List.of("a", "b", "{", "}", "sku", "ä", "😀", ":", "/", "{x}", "");
        StringBuilder b = new StringBuilder();
        int n = 1 + random.nextInt(6);
        for (int i = 0; i < n; i++) {
            b.append(parts.get(random.nextInt(parts.size())));
        }
        return b.isEmpty() ? "k" : b.toString();
    }
}

package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class NodeDataTest {

    @Test
    void roundTripsOwnerAndRequestTime() {
        NodeData d = new NodeData("4242@host|with|pipes", Instant.ofEpochMilli(1_700_000_000_123L));
        assertThat(NodeData.decode(NodeData.encode(d.ownerId(), d.requestedAt().toEpochMilli())))
                .contains(d);
    }

    @Test
    void dataNotWrittenByZkfenceDecodesToEmpty() {
        assertThat(NodeData.decode(null)).isEmpty();
        assertThat(NodeData.decode("10.0.0.1".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(NodeData.decode("zkfence1|notanumber|x".getBytes(StandardCharsets.UTF_8)))
                .isEmpty();
    }
}

package io.zkfence.fencing.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class ObserverListTest {

    private final List<String> failures = new ArrayList<>();
    private final ObserverList<Consumer<String>> observers = new ObserverList<>((o, e) -> failures.add(e.getMessage()));

    @Test
    void anObserverThatThrowsIsReportedAndTheOthersAreStillTold() {
        List<String> told = new ArrayList<>();
        observers.add(event -> {
            throw new IllegalStateException("meter registry closed");
        });
        observers.add(told::add);

        observers.each(o -> o.accept("granted"));

        assertThat(told).containsExactly("granted");
        assertThat(failures).containsExactly("meter registry closed");
    }

    @Test
    void aRegistryBindsOnceAndAnEmptyListSaysSo() {
        Object registry = new Object();

        assertThat(observers.isEmpty()).isTrue();
        assertThat(observers.bind(registry)).isTrue();
        assertThat(observers.bind(registry)).as("the same registry again").isFalse();
        assertThat(observers.bind(new Object())).as("another registry").isTrue();
    }
}

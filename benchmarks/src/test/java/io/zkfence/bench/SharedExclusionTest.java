package io.zkfence.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cross-process exclusion check. Two mappings of one file stand in for two processes: they
 * share the physical page exactly as separate processes' mappings do.
 */
class SharedExclusionTest {

    @TempDir
    Path dir;

    @Test
    void aHolderEnteringWhileAnotherIsInsideOnAnotherMappingIsAViolation() {
        try (SharedExclusion harness = SharedExclusion.create(dir.resolve("x"));
                SharedExclusion processA = SharedExclusion.open(harness.file());
                SharedExclusion processB = SharedExclusion.open(harness.file())) {
            long a = SharedExclusion.holderId(0, 7);
            long b = SharedExclusion.holderId(1, 7);

            boolean aAlone = processA.enter(a);
            boolean bAlone = processB.enter(b);
            processB.leave(b, bAlone);
            processA.leave(a, aAlone);

            assertThat(aAlone).isTrue();
            assertThat(bAlone).isFalse();
            assertThat(harness.violations()).isEqualTo(1);
            // b's visit did not clear a's mark, and a's leaving did: the next holder is alone again.
            assertThat(processB.enter(b)).isTrue();
        }
    }

    @Test
    void sectionsOneAfterAnotherCountEveryGrantAndNoViolation() throws InterruptedException {
        try (SharedExclusion harness = SharedExclusion.create(dir.resolve("x"));
                SharedExclusion processA = SharedExclusion.open(harness.file());
                SharedExclusion processB = SharedExclusion.open(harness.file())) {
            ReentrantLock lock = new ReentrantLock();
            List<Thread> threads = new ArrayList<>();
            int perThread = 20_000;
            for (SharedExclusion process : List.of(processA, processB)) {
                int index = process == processA ? 0 : 1;
                for (int t = 0; t < 2; t++) {
                    threads.add(Thread.ofPlatform().start(() -> {
                        long me = SharedExclusion.holderId(
                                index, Thread.currentThread().threadId());
                        for (int i = 0; i < perThread; i++) {
                            lock.lock();
                            try {
                                process.criticalSection(me);
                            } finally {
                                lock.unlock();
                            }
                        }
                    }));
                }
            }
            for (Thread t : threads) {
                t.join();
            }

            assertThat(harness.violations()).isZero();
            assertThat(harness.counter()).isEqualTo(4L * perThread);
        }
    }

    @Test
    void createStartsFromZeroAndCloseDeletesTheFile() {
        Path file = dir.resolve("x");
        try (SharedExclusion first = SharedExclusion.create(file)) {
            first.criticalSection(SharedExclusion.holderId(0, 1));
            first.enter(SharedExclusion.holderId(0, 1));
            first.enter(SharedExclusion.holderId(0, 2));
        }
        assertThat(file).doesNotExist();
        try (SharedExclusion again = SharedExclusion.create(file)) {
            assertThat(again.counter()).isZero();
            assertThat(again.violations()).isZero();
            assertThat(again.enter(SharedExclusion.holderId(0, 1))).isTrue();
        }
    }

    @Test
    void holderIdsAreNonZeroAndDistinctAcrossProcesses() {
        assertThat(SharedExclusion.holderId(0, 0)).isNotZero();
        assertThat(SharedExclusion.holderId(0, 5)).isNotEqualTo(SharedExclusion.holderId(1, 5));
        assertThatThrownBy(() -> SharedExclusion.holderId(-1, 5)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void openingAFileNobodyCreatedFails() {
        assertThatThrownBy(() -> SharedExclusion.open(dir.resolve("missing"))).hasMessageContaining("cannot map");
        assertThat(Files.exists(dir.resolve("missing"))).isFalse();
    }
}

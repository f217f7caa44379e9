package io.zkfence.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testing.Ensemble;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.test.InstanceSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Contention on several locks while servers are killed and restarted, the leader among them,
 * for as long as {@code -Dzkfence.soak=<ISO-8601 duration>} says (default 20 s, the CI run;
 * {@code ./soak 30} runs it for 30 minutes). Checks, per lock: never two holders inside at once,
 * tokens strictly increasing in grant order, every client keeps making progress, and no queue node
 * is left behind at the end.
 */
class SoakTest extends EnsembleTestBase {

    private static final Duration DURATION = Duration.parse(System.getProperty("zkfence.soak", "PT20S"));
    private static final int LOCKS = 3;
    private static final int CLIENTS = 4;
    private static final int THREADS_PER_CLIENT = 2;

    private static Ensemble own;

    @BeforeAll
    static void startOwnEnsemble() {
        own = Ensemble.start();
    }

    @AfterAll
    static void stopOwnEnsemble() {
        own.close();
    }

    @Override
    protected Ensemble ensemble() {
        return own;
    }

    private record Section(long token, boolean overlapped) {}

    @Test
    void locksStayExclusiveAndTokensIncreaseWhileServersAreKilledAndRestarted() throws Exception {
        List<LockClient> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            clients.add(newClient("soak-" + c));
        }
        Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
        Map<String, List<Section>> sections = new ConcurrentHashMap<>();
        for (int l = 0; l < LOCKS; l++) {
            inside.put("soak:" + l, new AtomicInteger());
            sections.put("soak:" + l, new CopyOnWriteArrayList<>());
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong grants = new AtomicLong();
        List<AtomicLong> progress = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (LockClient client : clients) {
            for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                AtomicLong mine = new AtomicLong();
                progress.add(mine);
                workers.add(Thread.ofPlatform().name("soak-worker").start(() -> {
                    try {
                        while (!stop.get()) {
                            String name = "soak:" + ThreadLocalRandom.current().nextInt(LOCKS);
                            try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(30))) {
                                if (!lease.isValid()) {
                                    continue; // suspended by a server kill: a careful holder does not write
                                }
                                boolean overlapped = inside.get(name).incrementAndGet() != 1;
                                sections.get(name).add(new Section(lease.token(), overlapped));
                                Thread.onSpinWait();
                                inside.get(name).decrementAndGet();
                                grants.incrementAndGet();
                                mine.incrementAndGet();
                            } catch (AcquireTimeoutException e) {
                                // A kill can stall a waiter; it tries again (progress is checked below).
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
        }

        long deadline = System.nanoTime() + DURATION.toNanos();
        int kills = 0;
        while (System.nanoTime() < deadline && failures.isEmpty()) {
            long before = grants.get();
            eventually().until(() -> grants.get() >= before + 20);
            List<InstanceSpec> servers = new ArrayList<>(ensemble.cluster().getInstances());
            InstanceSpec victim = kills % 3 == 0
                    ? ensemble.leader()
                    : servers.get(ThreadLocalRandom.current().nextInt(servers.size()));
            ensemble.kill(victim);
            long atKill = grants.get();
            eventually().until(() -> grants.get() >= atKill + 20);
            ensemble.restart(victim);
            kills++;
        }
        stop.set(true);
        for (Thread w : workers) {
            w.join(Ensemble.PATIENCE.toMillis());
            assertThat(w.isAlive()).as("worker finished").isFalse();
        }

        assertThat(failures).isEmpty();
        assertThat(kills).as("servers killed and restarted").isGreaterThanOrEqualTo(1);
        assertThat(progress).as("every worker was granted locks").allMatch(p -> p.get() > 0);
        for (Map.Entry<String, List<Section>> e : sections.entrySet()) {
            List<Section> s = e.getValue();
            assertThat(s).as("sections on %s", e.getKey()).isNotEmpty().noneMatch(Section::overlapped);
            assertThat(s.stream().map(Section::token).toList())
                    .as("tokens on %s in grant order", e.getKey())
                    .isSorted()
                    .doesNotHaveDuplicates();
        }
        for (int l = 0; l < LOCKS; l++) {
            FencedLock lock = clients.get(0).lock("soak:" + l);
            eventually().atMost(Ensemble.PATIENCE).until(() -> queueOf(lock).isEmpty());
        }
        System.out.printf("soak: %s, %d kills, %d grants%n", DURATION, kills, grants.get());
    }
}

package io.zkfence.samples.guide;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import io.zkfence.lock.LockInfo;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongConsumer;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The code of docs/lock-core.md and docs/token-contract.md, compiled and run by
 * {@code LockCoreGuideTest}; the guide quotes the regions verbatim.
 */
public final class LockCoreGuide {

    private static final Logger log = LoggerFactory.getLogger(LockCoreGuide.class);

    private LockCoreGuide() {}

    // snippet:clients
    /** Simplest: the client owns its ZooKeeper connection, e.g. to "zk1:2181,zk2:2181,zk3:2181". */
    public static LockClient connect(String connectString) {
        return LockClient.connect(connectString);
    }

    /**
     * On a CuratorFramework you already run: its session timeout, namespace,
     * authentication and TLS apply. Close the LockClient before the Curator client.
     */
    public static LockClient onCurator(CuratorFramework curator, String hostname) {
        return LockClient.create(
                curator,
                LockClientConfig.builder()
                        .rootPath("/myapp/locks")
                        .ownerId("checkout-7f9c@" + hostname)
                        .build());
    }
    // end:clients

    /** The three ways to acquire, each handing the token to {@code write}. */
    public static void acquireModes(LockClient client, LongConsumer write) {
        // snippet:acquire
        FencedLock lock = client.lock("inventory:sku:123");

        try (Lease lease = lock.acquire()) { // waits as long as it takes
            write.accept(lease.token());
        }
        try (Lease lease = lock.acquire(Duration.ofSeconds(5))) { // AcquireTimeoutException after 5 s
            write.accept(lease.token());
        }
        Optional<Lease> maybe = lock.tryAcquire(); // never waits for others
        maybe.ifPresent(lease -> {
            try (lease) {
                write.accept(lease.token());
            }
        });
        // end:acquire
    }

    /** Watching a lease: a check before writing, a listener, and the end as a value. */
    public static void watch(Lease lease, Runnable stopWorkers) {
        // snippet:lease
        lease.checkValid(); // throws LeaseSuspendedException (SUSPECT) or LeaseLostException
        lease.addListener((l, from, to) -> log.info("{}: {} -> {}", l.lockName(), from, to));
        lease.ended().thenAccept(finalState -> stopWorkers.run()); // like etcd's Session.Done()
        // end:lease
    }

    /** Looking at a lock's queue and the client's counters. */
    public static LockInfo lookInside(LockClient client) {
        // snippet:inspect
        LockInfo info = client.inspect("db-migration:user-service");
        info.holder(); // Optional<Entry>: ownerId, token, sequence, requestedAt, node
        info.waiters(); // in grant order
        client.stats(); // grants, releases, leasesLost, creates, childrenReads, wakeUps
        // end:inspect
        return info;
    }

    /** The token contract for two successive grants of one lock. */
    public static void tokensIncrease(Lease g1, Lease g2) {
        // snippet:contract
        assert g2.token() > g1.token(); // strictly increasing, whoever holds, whichever client
        // end:contract
    }
}

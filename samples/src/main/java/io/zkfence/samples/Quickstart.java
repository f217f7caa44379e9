package io.zkfence.samples;

import io.zkfence.lock.FencedLock;
import io.zkfence.lock.Lease;
import io.zkfence.lock.LockClient;
import java.time.Duration;

public final class Quickstart {

    public static void main(String[] args) {
        String zookeeper = args.length > 0 ? args[0] : "localhost:2181";
        try (LockClient client = LockClient.connect(zookeeper)) {
            FencedLock lock = client.lock("inventory:sku:123");
            try (Lease lease = lock.acquire(Duration.ofSeconds(10))) {
                lease.checkValid(); // still ours? local check, no round trip
                long token = lease.token(); // hand it to every write; the resource rejects lower ones
                System.out.println("holding " + lock.name() + " with fencing token " + token);
            }
        }
    }
}

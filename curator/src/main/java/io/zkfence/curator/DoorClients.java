package io.zkfence.curator;

import io.zkfence.lock.LockClient;
import io.zkfence.lock.LockClientConfig;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEventType;

/**
 * One shared {@link LockClient} per {@code CuratorFramework} and parent path, on the caller's own
 * client and session, as Curator's recipes use the client they are given. Each is closed when
 * its Curator client closes (Curator's {@code CLOSING} event), so a door leaves nothing running.
 */
final class DoorClients {

    private record Key(CuratorFramework curator, String root) {}

    private static final Map<Key, LockClient> CLIENTS = new ConcurrentHashMap<>();
    private static final Map<CuratorFramework, Boolean> WATCHED = new ConcurrentHashMap<>();

    private DoorClients() {}

    static LockClient of(CuratorFramework curator, String root) {
        WATCHED.computeIfAbsent(curator, c -> {
            c.getCuratorListenable().addListener((client, event) -> {
                if (event.getType() == CuratorEventType.CLOSING) {
                    closeAll(client);
                }
            });
            return Boolean.TRUE;
        });
        return CLIENTS.computeIfAbsent(
                new Key(curator, root),
                k -> LockClient.create(
                        curator, LockClientConfig.builder().rootPath(root).build()));
    }

    private static void closeAll(CuratorFramework curator) {
        WATCHED.remove(curator);
        CLIENTS.keySet().removeIf(k -> {
            if (k.curator() != curator) {
                return false;
            }
            LockClient c = CLIENTS.get(k);
            if (c != null) {
                c.close();
            }
            return true;
        });
    }
}

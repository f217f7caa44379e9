package io.zkfence.lock;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;

/**
 * Turns Curator's connection states into lease states: the session is the lease.
 *
 * <ul>
 * <li>SUSPENDED (or READ_ONLY: no writes possible): held leases become SUSPECT.</li>
 * <li>RECONNECTED: a lease whose session survived and whose node is still there is HELD again;
 *     otherwise LOST. Waiters whose session changed queue again.</li>
 * <li>LOST: Curator has given the session up (expired, or no connection for a whole session
 *     timeout): every lease is LOST, every waiter queues again.</li>
 * </ul>
 */
final class SessionMonitor implements ConnectionStateListener {

    private final LockRuntime rt;

    SessionMonitor(LockRuntime rt) {
        this.rt = rt;
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState newState) {
        switch (newState) {
            case SUSPENDED, READ_ONLY -> rt.registry.grants().forEach(Grant::suspend);
            case LOST -> {
                rt.registry
                        .grants()
                        .forEach(g -> g.lose(
                                LockObserver.LossCause.SESSION_EXPIRED,
                                "ZooKeeper session lost (no connection for the session timeout, or expired)"));
                rt.registry.acquisitions().forEach(Acquisition::sessionLost);
            }
            case CONNECTED, RECONNECTED -> {
                long session = rt.zk.sessionId();
                rt.registry.grants().forEach(g -> g.resume(session));
                rt.registry.acquisitions().forEach(a -> a.reconnected(session));
            }
        }
    }
}

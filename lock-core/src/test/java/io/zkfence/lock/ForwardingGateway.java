package io.zkfence.lock;

import io.zkfence.lock.internal.ZkGateway;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/** A gateway that forwards every call to the real one; tests override the calls they break. */
class ForwardingGateway implements ZkGateway {

    final ZkGateway real;

    ForwardingGateway(ZkGateway real) {
        this.real = real;
    }

    @Override
    public List<ACL> acl() {
        return real.acl();
    }

    @Override
    public String fullPath(String path) {
        return real.fullPath(path);
    }

    @Override
    public CompletableFuture<Created> create(String path, byte[] data, CreateMode mode) {
        return real.create(path, data, mode);
    }

    @Override
    public CompletableFuture<Children> children(String path, Watcher watcher) {
        return real.children(path, watcher);
    }

    @Override
    public CompletableFuture<NodeContent> getData(String path, Watcher watcher) {
        return real.getData(path, watcher);
    }

    @Override
    public CompletableFuture<Stat> exists(String path, Watcher watcher) {
        return real.exists(path, watcher);
    }

    @Override
    public CompletableFuture<Stat> setData(String path, byte[] data, int version) {
        return real.setData(path, data, version);
    }

    @Override
    public CompletableFuture<Void> delete(String path, int version) {
        return real.delete(path, version);
    }

    @Override
    public CompletableFuture<MultiAnswer> multi(List<Op> ops) {
        return real.multi(ops);
    }

    @Override
    public CompletableFuture<Void> sync(String path) {
        return real.sync(path);
    }

    @Override
    public void deleteSyncRecording(String nodePath, String lockPath, byte[] record)
            throws KeeperException, InterruptedException {
        real.deleteSyncRecording(nodePath, lockPath, record);
    }

    @Override
    public void removeWatch(String path, Watcher watcher) {
        real.removeWatch(path, watcher);
    }

    @Override
    public void deleteSync(String path) throws KeeperException, InterruptedException {
        real.deleteSync(path);
    }

    @Override
    public void createContainers(String path) throws KeeperException, InterruptedException {
        real.createContainers(path);
    }

    @Override
    public boolean isConnected() {
        return real.isConnected();
    }

    @Override
    public long sessionId() {
        return real.sessionId();
    }

    @Override
    public int sessionTimeoutMs() {
        return real.sessionTimeoutMs();
    }

    @Override
    public Runnable onConnected(Runnable listener) {
        return real.onConnected(listener);
    }
}

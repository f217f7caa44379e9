package io.zkfence.lock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;

/** A gateway that forwards every call to the real one; tests override the calls they break. */
class ForwardingGateway implements ZkGateway {

    final ZkGateway real;

    ForwardingGateway(ZkGateway real) {
        this.real = real;
    }

    @Override
    public CompletableFuture<Created> create(String path, byte[] data, CreateMode mode) {
        return real.create(path, data, mode);
    }

    @Override
    public CompletableFuture<List<String>> children(String path) {
        return real.children(path);
    }

    @Override
    public CompletableFuture<NodeContent> watchData(String path, Watcher watcher) {
        return real.watchData(path, watcher);
    }

    @Override
    public CompletableFuture<NodeContent> getData(String path) {
        return real.getData(path);
    }

    @Override
    public CompletableFuture<Void> delete(String path) {
        return real.delete(path);
    }

    @Override
    public void deleteSync(String path) throws Exception {
        real.deleteSync(path);
    }

    @Override
    public void deleteSyncRecording(String nodePath, String lockPath, byte[] record) throws Exception {
        real.deleteSyncRecording(nodePath, lockPath, record);
    }

    @Override
    public void removeWatch(String path, Watcher watcher) {
        real.removeWatch(path, watcher);
    }

    @Override
    public void createContainers(String path) throws Exception {
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
}

package io.zkfence.campaigns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The fault "a worker's session expires while it waits": the server ends the session of a worker
 * that has a queue node behind another one, while the worker may be perfectly connected.
 *
 * <p>A worker publishes its session (id and password) in a file each time it gets a new one. The
 * campaign finds, through its own ZooKeeper connection, a queue node owned by that session that is
 * not at the head of its lock's queue, then opens a second connection with the same id and
 * password and closes it: ZooKeeper then closes the session for both connections, deletes its
 * ephemeral nodes, and the worker learns on its next contact that its session expired (the
 * technique of Curator's test utilities, done with the plain ZooKeeper client here).
 */
final class SessionExpiry {

    /** A session as a worker published it. */
    record Session(long id, byte[] password) {

        String encode() {
            return Long.toHexString(id) + " " + Base64.getEncoder().encodeToString(password);
        }

        static Session decode(String line) {
            String[] parts = line.trim().split(" ");
            if (parts.length != 2) {
                throw new IllegalArgumentException("not a session line: '" + line + "'");
            }
            return new Session(
                    Long.parseUnsignedLong(parts[0], 16), Base64.getDecoder().decode(parts[1]));
        }
    }

    private SessionExpiry() {}

    /** Writes {@code session} to {@code file}, replacing it whole so that a reader never sees half a line. */
    static void publish(Path file, Session session) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.writeString(tmp, session.encode(), StandardCharsets.UTF_8);
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot publish the session in " + file, e);
        }
    }

    /** The session last published in {@code file}, if the worker has published one yet. */
    static Optional<Session> read(Path file) {
        try {
            return Optional.of(Session.decode(Files.readString(file, StandardCharsets.UTF_8)));
        } catch (NoSuchFileException notYet) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the session in " + file, e);
        }
    }

    /**
     * The path of a queue node under {@code lockRoot} that {@code sessionId} owns and that waits
     * behind another node of the same lock, if there is one now.
     */
    static Optional<String> waitingNode(CuratorFramework zk, String lockRoot, long sessionId) {
        try {
            if (zk.checkExists().forPath(lockRoot) == null) {
                return Optional.empty();
            }
            for (String lock : zk.getChildren().forPath(lockRoot)) {
                String lockPath = lockRoot + "/" + lock;
                List<String> queue = zk.getChildren().forPath(lockPath).stream()
                        .sorted(Comparator.comparing(SessionExpiry::sequence))
                        .toList();
                for (int i = 1; i < queue.size(); i++) {
                    String node = lockPath + "/" + queue.get(i);
                    Stat stat = zk.checkExists().forPath(node);
                    if (stat != null && stat.getEphemeralOwner() == sessionId) {
                        return Optional.of(node);
                    }
                }
            }
            return Optional.empty();
        } catch (KeeperException.NoNodeException raced) {
            return Optional.empty(); // a lock or node went away while we looked: nothing waiting there now
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the queues under " + lockRoot + ": " + e, e);
        }
    }

    /**
     * Has the server end {@code session}: connects with its id and password to {@code connectString}
     * and closes that connection. Returns once the session is closed (or found already expired).
     */
    static void expire(String connectString, Session session) {
        CountDownLatch attached = new CountDownLatch(1);
        Watcher watcher = event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected
                    || event.getState() == Watcher.Event.KeeperState.Expired) {
                attached.countDown();
            }
        };
        try {
            ZooKeeper twin = new ZooKeeper(connectString, 4_000, watcher, session.id(), session.password());
            try {
                if (!attached.await(15, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(
                            "could not attach to session 0x" + Long.toHexString(session.id()) + " within 15 s");
                }
            } finally {
                twin.close(); // closes the session on the server: the worker's own connection is told it expired
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to " + connectString, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while expiring a session", e);
        }
    }

    /** The sequence suffix ZooKeeper appended to a sequential node's name: its place in the queue. */
    private static String sequence(String node) {
        return node.substring(Math.max(0, node.length() - 10));
    }
}

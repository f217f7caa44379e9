package io.zkfence.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy in front of one ZooKeeper server that can be frozen: while frozen it swallows
 * every byte of the open connections in both directions (no reset, no FIN), like a network
 * partition or a holder whose process is stopped, and closes new connections at once. The client's heartbeats then never reach the server, so the server
 * itself expires the session and deletes its ephemeral nodes.
 */
public final class FreezableProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Set<Socket> frozenDuring = ConcurrentHashMap.newKeySet();
    private volatile boolean frozen;
    private volatile boolean closed;

    /**
     * Starts a proxy on a free loopback port in front of a local server.
     *
     * @param targetPort the port of the server on 127.0.0.1
     * @throws IOException if no port can be bound
     */
    public FreezableProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "proxy-accept-" + targetPort);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Returns the address clients connect to instead of the server's.
     *
     * @return {@code 127.0.0.1:<port>} of the proxy
     */
    public String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** From now on no byte passes, and new connections are closed at once. */
    public void freeze() {
        frozen = true;
        frozenDuring.addAll(sockets);
    }

    /**
     * Lets traffic through again. Connections that were open during the freeze are closed: bytes
     * were swallowed mid-stream, so they could only resume in the middle of a frame. Their clients
     * reconnect.
     */
    public void thaw() {
        frozen = false;
        frozenDuring.forEach(this::closeQuietly);
        frozenDuring.clear();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                continue; // closed, or a failed accept: the loop condition decides
            }
            if (frozen) {
                // Cut off: new connections fail at once, so the client keeps retrying and
                // reconnects promptly after thaw().
                closeQuietly(client);
                continue;
            }
            try {
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                // The target is down: fail this client's connection now rather than leave it hanging.
                closeQuietly(client);
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(
                () -> {
                    byte[] buf = new byte[8192];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        int n;
                        while ((n = in.read(buf)) >= 0) {
                            if (!frozen) {
                                out.write(buf, 0, n);
                                out.flush();
                            }
                        }
                    } catch (IOException e) {
                        // One side closed: close the other so the peer sees it.
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private void closeQuietly(Socket s) {
        sockets.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            // closing a socket that failed already: nothing to report
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        sockets.forEach(this::closeQuietly);
    }
}

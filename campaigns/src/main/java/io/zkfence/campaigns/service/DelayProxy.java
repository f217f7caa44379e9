package io.zkfence.campaigns.service;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy in front of one replica of the lock service, as a load balancer would stand there;
 * the workers reach the replica only through it. Two faults act here:
 *
 * <ul>
 * <li>{@link #hold(Duration)}: bytes that arrive in either direction until the hold ends are
 *     delivered when it ends, in order. A request held this way reaches the replica after its client
 *     timed out and retried elsewhere (a delayed duplicate); an answer held this way is lost to a
 *     client that timed out (a grant its client did not hear of). When the client closes its
 *     connection meanwhile, the replica gets the held bytes first and the close after them, as a
 *     paused replica would read them from its socket when it resumes.
 * <li>{@link #dropAll()}: every open connection is reset (RST) on both sides at once: a caller
 *     waiting on the replica loses its connection mid-wait, and the replica sees it go.
 * </ul>
 *
 * <p>A close passes through (a FIN becomes a FIN), so a caller that leaves is seen leaving.
 */
final class DelayProxy implements AutoCloseable {

    private final int upstreamPort;
    private final ServerSocket listener;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicLong holdUntilNanos = new AtomicLong(System.nanoTime());
    private final AtomicInteger heldRequests = new AtomicInteger();
    private final AtomicInteger heldAnswers = new AtomicInteger();
    private volatile boolean closed;

    /** Listens on a free port of 127.0.0.1 and forwards to {@code upstreamPort} there. */
    DelayProxy(int upstreamPort) {
        this.upstreamPort = upstreamPort;
        try {
            listener = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen for the proxy of port " + upstreamPort, e);
        }
        Thread.ofPlatform().daemon().name("delay-proxy-" + upstreamPort).start(this::accept);
    }

    /** The proxy's base URL: what the workers are given instead of the replica's. */
    String url() {
        return "http://127.0.0.1:" + listener.getLocalPort();
    }

    /**
     * Holds every byte that arrives from now for {@code duration}, then delivers it.
     *
     * @return a count of what was held, read once the hold is over
     */
    Held hold(Duration duration) {
        int requests = heldRequests.get();
        int answers = heldAnswers.get();
        long until = System.nanoTime() + duration.toNanos();
        holdUntilNanos.accumulateAndGet(until, Math::max);
        return () -> new int[] {heldRequests.get() - requests, heldAnswers.get() - answers};
    }

    /** What a hold delayed: {@code {reads from clients, reads from the replica}}. */
    interface Held {
        int[] counts();
    }

    /**
     * Resets every open connection on both sides.
     *
     * @return how many of them had a request out that the replica had not answered yet
     */
    int dropAll() {
        int inFlight = 0;
        for (Link link : links) {
            if (link.awaitingAnswer) {
                inFlight++;
            }
            link.reset();
        }
        return inFlight;
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            dropAll();
        }
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue; // one failed accept: keep serving the others
            }
            Link link = new Link(client);
            links.add(link);
            Thread.ofVirtual().start(link::run);
        }
    }

    /** One client connection and its connection to the replica. */
    private final class Link {
        private final Socket client;
        private final Socket upstream = new Socket();
        private volatile boolean awaitingAnswer;
        private final AtomicInteger directionsOpen = new AtomicInteger(2);

        Link(Socket client) {
            this.client = client;
        }

        void run() {
            try {
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort), 2_000);
            } catch (IOException refused) {
                reset(); // the replica is down: the client sees its connection reset, as without the proxy
                return;
            }
            Thread.ofVirtual().start(() -> pump(upstream, client, false));
            pump(client, upstream, true);
        }

        /** Copies one direction, each read delivered no earlier than the hold in force when it arrived. */
        private void pump(Socket from, Socket to, boolean request) {
            byte[] buffer = new byte[16 * 1024];
            boolean deliver = true;
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    long until = holdUntilNanos.get();
                    if (until - System.nanoTime() > 0) {
                        (request ? heldRequests : heldAnswers).incrementAndGet();
                        for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
                            LockSupport.parkNanos(left);
                        }
                    }
                    awaitingAnswer = request;
                    if (deliver) {
                        try {
                            out.write(buffer, 0, n);
                            out.flush();
                        } catch (IOException gone) {
                            if (request) {
                                throw gone; // the replica went: nothing more to send it
                            }
                            deliver = false; // the client left: read the replica's answer to its end anyway
                        }
                    }
                }
                if (!to.isClosed()) {
                    to.shutdownOutput(); // a FIN passes on as a FIN, after every held byte
                }
            } catch (IOException e) {
                reset(); // a reset or a failure on one side resets the other
                return;
            }
            if (directionsOpen.decrementAndGet() == 0) {
                closeQuietly();
            }
        }

        void reset() {
            for (Socket s : new Socket[] {client, upstream}) {
                try {
                    if (!s.isClosed()) {
                        s.setSoLinger(true, 0); // RST, not FIN
                        s.close();
                    }
                } catch (IOException alreadyGone) {
                    // closed meanwhile: nothing to reset
                }
            }
            links.remove(this);
        }

        private void closeQuietly() {
            try {
                client.close();
                upstream.close();
            } catch (IOException alreadyGone) {
                // both directions ended: nothing is lost
            }
            links.remove(this);
        }
    }
}

package io.zkfence.server;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices that the caller of a waiting request has closed its connection while the handler waits.
 *
 * <p>Jetty reads an HTTP/1.1 connection only while a request's body is being read and between
 * requests. Once the body is consumed and the handler blocks, nothing reads the socket, so a
 * closed connection goes unseen: the endpoint stays open and no failure listener runs until the
 * answer is written or the idle timeout ends the connection. This watch does the reading, as Go's
 * HTTP server does in the background for the same reason: it registers fill interest on the
 * request's endpoint (under TLS the decrypting one, so a {@code close_notify} and a bare FIN both
 * read as the end) and fills once the connection is readable. End of stream or a read error means
 * the caller left ({@link #gone()}); a caller that only shut down its sending side counts as
 * gone too. Bytes mean the client pipelined another request behind this one: they are read and
 * dropped, and {@link #pipelined()} tells the handler to answer with {@code Connection: close},
 * so that the client sends them again (RFC 9112, section 9.3.2).
 *
 * <p>Start it only after the request's body has been read to its end (the bytes read here must
 * not belong to it), and {@link #close()} it before the handler returns: Jetty wants the
 * endpoint's one fill interest for the next request, and closes a connection whose fill interest
 * is still taken when the answer completes.
 */
final class ConnectionWatch implements CallerPresence, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConnectionWatch.class);

    private final AbstractEndPoint endPoint;
    private final ByteBuffer buffer = BufferUtil.allocate(1024);
    private final Set<Runnable> wakes = ConcurrentHashMap.newKeySet();
    private final Callback readable = new Callback() {
        @Override
        public void succeeded() {
            onReadable();
        }

        @Override
        public void failed(Throwable cause) {
            onFailed(cause);
        }
    };
    /** Held while reading and while closing, so that no read runs once close() has returned. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock: true once this watch has stopped reading (closed, or the caller left). */
    private boolean stopped;

    private volatile boolean pipelined;
    /** The endpoint's idle timeout before {@link #keepOpenFor}, restored on close; -1 if unchanged. */
    private long idleTimeoutBefore = -1;

    private volatile boolean gone;

    private ConnectionWatch(AbstractEndPoint endPoint) {
        this.endPoint = endPoint;
    }

    /**
     * Starts watching the connection of {@code request}, whose body has been read. A connection
     * that cannot be watched (not HTTP/1, not a Jetty endpoint, or one that something else is
     * reading) gives a watch that never reports the caller gone.
     */
    static ConnectionWatch start(HttpServletRequest request) {
        AbstractEndPoint watchable = endPointOf(request);
        if (watchable == null) {
            return unwatched();
        }
        ConnectionWatch watch = new ConnectionWatch(watchable);
        if (!watchable.tryFillInterested(watch.readable)) {
            log.debug("not watching {} for a disconnect: its connection is being read", request.getRequestURI());
            watch.stopped = true;
        }
        return watch;
    }

    /** The request's HTTP/1 Jetty endpoint, or null if it cannot be read here. */
    private static AbstractEndPoint endPointOf(HttpServletRequest request) {
        ConnectionMetaData connection =
                ServletContextRequest.getServletContextRequest(request).getConnectionMetaData();
        if (connection.getHttpVersion() != HttpVersion.HTTP_1_1
                && connection.getHttpVersion() != HttpVersion.HTTP_1_0) {
            // Only an HTTP/1 connection belongs to one request at a time; reading an HTTP/2
            // connection here would take frames of other streams (and HTTP/2 resets a stream itself).
            log.debug(
                    "not watching {} for a disconnect: it came over {}",
                    request.getRequestURI(),
                    connection.getHttpVersion());
            return null;
        }
        EndPoint endPoint = connection.getConnection().getEndPoint();
        if (!(endPoint instanceof AbstractEndPoint watchable)) {
            log.debug(
                    "not watching {} for a disconnect: its endpoint is a {}",
                    request.getRequestURI(),
                    endPoint.getClass());
            return null;
        }
        return watchable;
    }

    /**
     * Looks once, without waiting, whether the caller of {@code request} (whose body has been read)
     * has closed its connection already: a request read from a buffer after its caller gave up
     * (the replica was paused, say) is then not acted on. The watch returned reads nothing more.
     */
    static ConnectionWatch probe(HttpServletRequest request) {
        AbstractEndPoint endPoint = endPointOf(request);
        ConnectionWatch watch = new ConnectionWatch(endPoint);
        watch.stopped = true; // no fill interest: one read, here, now
        if (endPoint != null && watch.readOnce()) {
            watch.gone = true;
        }
        return watch;
    }

    /**
     * Lets the connection stay idle (no bytes either way) for up to {@code millis} while the
     * request waits, instead of the connector's idle timeout; {@link #close()} restores it, counted
     * from then.
     */
    void keepOpenFor(long millis) {
        if (endPoint != null) {
            idleTimeoutBefore = endPoint.getIdleTimeout();
            endPoint.setIdleTimeout(Math.max(idleTimeoutBefore, millis));
        }
    }

    private static ConnectionWatch unwatched() {
        ConnectionWatch watch = new ConnectionWatch(null);
        watch.stopped = true;
        return watch;
    }

    @Override
    public boolean gone() {
        return gone;
    }

    @Override
    public Runnable onGone(Runnable wake) {
        wakes.add(wake);
        if (gone) {
            wake.run();
        }
        return () -> wakes.remove(wake);
    }

    /** True if the client sent more bytes behind this request: answer with {@code Connection: close}. */
    boolean pipelined() {
        return pipelined;
    }

    /** Stops reading; afterwards the endpoint is Jetty's alone again. */
    @Override
    public void close() {
        if (idleTimeoutBefore >= 0) {
            // The idle clock counts from the connection's last bytes, the request's, so after a wait
            // longer than the connector's timeout, restoring that timeout expires it at once, and
            // Jetty then fails the answer being written (500 for a grant that was made). The idle
            // time starts again from the answer instead.
            endPoint.notIdle();
            endPoint.setIdleTimeout(idleTimeoutBefore);
            idleTimeoutBefore = -1;
        }
        lock.lock();
        try {
            if (!stopped) {
                stopped = true;
                // Takes back the fill interest registered here; nothing else registers one while
                // the handler runs. Our callback hears it as a failure and ignores it (stopped).
                endPoint.getFillInterest().onFail(new CancellationException("the request is answered"));
            }
        } finally {
            lock.unlock();
        }
    }

    private void onReadable() {
        boolean left;
        lock.lock();
        try {
            if (stopped) {
                return;
            }
            left = readOnce();
            if (left) {
                stopped = true;
            } else if (!endPoint.tryFillInterested(readable)) {
                // Cannot happen while the handler runs (nothing else reads then); stop rather than fail.
                log.warn("stopped watching {} for a disconnect: its fill interest was taken", endPoint);
                stopped = true;
            }
        } finally {
            lock.unlock();
        }
        if (left) {
            leave();
        }
    }

    /** One read: true if it found the end of the stream or an error. */
    private boolean readOnce() {
        BufferUtil.clear(buffer);
        try {
            int filled = endPoint.fill(buffer);
            if (filled > 0) {
                pipelined = true;
            }
            return filled < 0;
        } catch (IOException e) {
            log.debug("reading {} while its request waits failed: the caller is gone", endPoint, e);
            return true;
        }
    }

    private void onFailed(Throwable cause) {
        lock.lock();
        try {
            if (stopped) {
                return; // our own close(), or after the caller left
            }
            stopped = true;
        } finally {
            lock.unlock();
        }
        // The endpoint closed or timed out under the waiting request: nobody will read its answer.
        log.debug("the connection {} failed while its request waits", endPoint, cause);
        leave();
    }

    private void leave() {
        gone = true;
        wakes.forEach(Runnable::run);
    }
}

package io.zkfence.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * A blocking HTTP/1.1 client on one keep-alive connection: it writes a request and reads the
 * answer on the calling thread, as Python's {@code http.client} or a Go client on one connection
 * do. The lock service is measured with it because {@code java.net.http} sends each request
 * through an asynchronous pipeline (its selector thread, an executor, the caller's future): in a
 * probe on this 2-core machine that cost about three times the context switches of this client
 * per bare {@code GET}, more than the server's own HTTP work. The report keeps a
 * {@code java.net.http} row beside it.
 *
 * <p>One caller at a time (one connection). Answers must carry {@code Content-Length}, as the
 * service's always do; a chunked answer is an {@link IOException}. An answer with
 * {@code Connection: close} closes the connection, and the next request opens a new one; so does
 * a connection the server closed while it sat idle (checked before reuse after a second idle).
 */
final class KeepAliveHttp implements AutoCloseable {

    /** An answer: status and body. */
    record Answer(int status, byte[] body) {}

    private final String host;
    private final int port;
    private final int readTimeoutMillis;
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private int connections;
    /** When the last answer was read (nanos): a connection idle longer than this is checked before reuse. */
    private long lastAnswer;

    private final long staleAfterNanos;

    /**
     * @param readTimeout how long a read may block: longer than any wait the server may hold a
     *                    request for
     */
    KeepAliveHttp(String host, int port, Duration readTimeout) {
        this(host, port, readTimeout, Duration.ofSeconds(1));
    }

    /**
     * @param staleAfter a connection idle this long is checked before it is reused (the check
     *                   waits 1 ms for the end of the stream)
     */
    KeepAliveHttp(String host, int port, Duration readTimeout, Duration staleAfter) {
        this.host = host;
        this.port = port;
        this.readTimeoutMillis = Math.toIntExact(readTimeout.toMillis());
        this.staleAfterNanos = staleAfter.toNanos();
    }

    Answer get(String path) throws IOException {
        return exchange(
                ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    }

    Answer post(String path, String json) throws IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + host
                        + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] request = new byte[head.length + body.length];
        System.arraycopy(head, 0, request, 0, head.length);
        System.arraycopy(body, 0, request, head.length, body.length);
        return exchange(request); // one write: head and body leave in one segment
    }

    /** Connections opened so far: 1 as long as the server keeps the connection alive. */
    int connections() {
        return connections;
    }

    private Answer exchange(byte[] request) throws IOException {
        if (socket != null && System.nanoTime() - lastAnswer >= staleAfterNanos && closedByServer()) {
            // The server closed the idle connection (its idle timeout): as HTTP clients do with a
            // pooled connection, check before reusing it, so the request is never lost on it.
            close();
        }
        if (socket == null) {
            connect();
        }
        try {
            out.write(request);
            out.flush();
            return readAnswer();
        } catch (IOException e) {
            closeAfter(e); // the connection's state is unknown now: the next request opens a new one
            throw e;
        }
    }

    /**
     * Whether the server has closed this connection: a read that waits 1 ms finds the end of the
     * stream (closed) or nothing (open). Bytes the server sent unasked are a protocol error.
     */
    private boolean closedByServer() throws IOException {
        socket.setSoTimeout(1);
        try {
            in.mark(1);
            int b = in.read();
            if (b < 0) {
                return true;
            }
            in.reset();
            throw new IOException("the server sent bytes nobody asked for on an idle connection");
        } catch (SocketTimeoutException open) {
            return false;
        } catch (SocketException reset) {
            return true;
        } finally {
            if (socket != null && !socket.isClosed()) {
                socket.setSoTimeout(readTimeoutMillis);
            }
        }
    }

    private void connect() throws IOException {
        Socket s = new Socket(host, port);
        s.setTcpNoDelay(true);
        s.setSoTimeout(readTimeoutMillis);
        socket = s;
        in = new BufferedInputStream(s.getInputStream());
        out = s.getOutputStream();
        connections++;
    }

    private Answer readAnswer() throws IOException {
        String statusLine = line();
        if (!statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
            throw new IOException("not an HTTP/1.1 status line: '" + statusLine + "'");
        }
        int status = Integer.parseInt(statusLine.substring(9, 12));
        long length = -1;
        boolean close = false;
        for (String header = line(); !header.isEmpty(); header = line()) {
            int colon = header.indexOf(':');
            String name = colon < 0 ? header : header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = colon < 0 ? "" : header.substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" ->
                    throw new IOException("chunked answers are not supported (Transfer-Encoding: " + value + ")");
                case "connection" -> close = value.equalsIgnoreCase("close");
                default -> {}
            }
        }
        if (length < 0) {
            throw new IOException("an answer without Content-Length (status " + status + ")");
        }
        byte[] body = in.readNBytes(Math.toIntExact(length));
        if (body.length < length) {
            throw new EOFException("the connection closed after " + body.length + " of " + length + " body bytes");
        }
        if (close) {
            close();
        }
        lastAnswer = System.nanoTime();
        return new Answer(status, body);
    }

    /** One header line without its CRLF. */
    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new EOFException("the connection closed in the head of an answer");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }

    private void closeAfter(IOException failure) {
        try {
            close();
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public void close() throws IOException {
        Socket s = socket;
        socket = null;
        if (s != null) {
            s.close();
        }
    }
}

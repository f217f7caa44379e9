package io.zkfence.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import javax.net.ssl.SSLContext;

/**
 * A replica's warm-up before it reports ready: acquire and release cycles on a lock of its own,
 * sent to its own HTTP port over one keep-alive connection, so that the JIT has compiled the
 * request path (Jetty, Javalin, the JSON, the service's code and ZooKeeper's client) before
 * clients arrive. Without it the first few hundred cycles of a new replica run interpreted.
 *
 * <p>The cycles rotate through the shapes clients send — no requestId, a requestId, a waiting
 * acquire — and renew every third lease. The lock is {@value #NAMESPACE}{@code :<random>}, new for
 * each start, so two replicas warming up at once never wait for each other; every lease is released
 * before the next acquire. A failed cycle ends the warm-up early (the replica then reports ready
 * anyway: the warm-up only saves latency).
 */
final class WarmUp {

    /** The namespace of the warm-up's locks; its cycles are left out of the replica's metrics. */
    static final String NAMESPACE = "zkfence-warm-up";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** True for a lock of the warm-up's: its calls are left out of the replica's metrics. */
    static boolean isWarmUpLock(LockKey key) {
        return key.namespace().equals(NAMESPACE);
    }

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    private final String host;
    private final int port;
    private final SSLContext tls;
    private final String bearer;
    private final String lockPath;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    /**
     * @param host   where the replica listens (a wildcard bind is reached on the loopback address)
     * @param tls    a context that trusts the replica's own certificate, or null for plain HTTP
     * @param bearer the API key to send, or null
     */
    WarmUp(String host, int port, SSLContext tls, String bearer) {
        this.host = host;
        this.port = port;
        this.tls = tls;
        this.bearer = bearer;
        byte[] id = new byte[8];
        ThreadLocalRandom.current().nextBytes(id);
        this.lockPath = "/v1/locks/" + NAMESPACE + ":" + HexFormat.of().formatHex(id);
    }

    /**
     * Runs up to {@code cycles} cycles, for at most {@code budget}.
     *
     * @return the cycles completed
     * @throws IOException if a cycle failed (an answer other than 200, or the connection)
     */
    int run(int cycles, Duration budget) throws IOException {
        long deadline = System.nanoTime() + budget.toNanos();
        try {
            int done = 0;
            while (done < cycles && System.nanoTime() < deadline) {
                cycle(done);
                done++;
            }
            return done;
        } finally {
            if (socket != null) {
                socket.close();
            }
        }
    }

    private void cycle(int n) throws IOException {
        String owner = "warm-up";
        String acquire = switch (n % 3) {
            case 0 -> "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":30000}";
            case 1 -> "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":30000,\"requestId\":\"w" + n + "\"}";
            default ->
                "{\"ownerId\":\"" + owner + "\",\"ttlMillis\":30000,\"wait\":true,\"waitMillis\":10000,"
                        + "\"requestId\":\"w" + n + "\"}";
        };
        JsonNode grant = post(lockPath + "/acquire", acquire);
        String token = grant.get("lockToken").asText();
        if (n % 3 == 2) {
            post(
                    lockPath + "/renew",
                    "{\"ownerId\":\"" + owner + "\",\"lockToken\":\"" + token + "\",\"ttlMillis\":30000}");
        }
        post(lockPath + "/release", "{\"ownerId\":\"" + owner + "\",\"lockToken\":\"" + token + "\"}");
    }

    private JsonNode post(String path, String json) throws IOException {
        if (socket == null) {
            connect();
        }
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        String head = "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n"
                + (bearer == null ? "" : "Authorization: Bearer " + bearer + "\r\n")
                + "Content-Length: " + body.length + "\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        String status = line();
        if (!status.startsWith("HTTP/1.1 ") || status.length() < 12) {
            throw new IOException("warm-up: not an HTTP/1.1 answer: '" + status + "'");
        }
        int code = Integer.parseInt(status.substring(9, 12));
        int length = -1;
        boolean close = false;
        for (String h = line(); !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            String name = colon < 0 ? h : h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = colon < 0 ? "" : h.substring(colon + 1).trim();
            if (name.equals("content-length")) {
                length = Integer.parseInt(value);
            } else if (name.equals("connection")) {
                close = value.equalsIgnoreCase("close");
            }
        }
        if (length < 0) {
            throw new IOException("warm-up: an answer without Content-Length (status " + code + ")");
        }
        byte[] answer = in.readNBytes(length);
        if (answer.length < length) {
            throw new EOFException("warm-up: the connection closed in an answer");
        }
        if (close) {
            socket.close();
            socket = null;
        }
        if (code != 200) {
            throw new IOException("warm-up: " + path.substring(path.lastIndexOf('/') + 1) + " answered " + code + ": "
                    + new String(answer, StandardCharsets.UTF_8));
        }
        return JSON.readTree(answer);
    }

    private void connect() throws IOException {
        Socket s = tls == null
                ? new Socket(InetAddress.getByName(host), port)
                : tls.getSocketFactory().createSocket(InetAddress.getByName(host), port);
        s.setTcpNoDelay(true);
        s.setSoTimeout(Math.toIntExact(READ_TIMEOUT.toMillis()));
        socket = s;
        in = new BufferedInputStream(s.getInputStream());
        out = s.getOutputStream();
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new EOFException("warm-up: the connection closed in the head of an answer");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }
}

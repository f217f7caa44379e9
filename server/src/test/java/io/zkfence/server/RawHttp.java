package io.zkfence.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.1 over a socket the test holds, for what a ready-made client hides: closing the
 * connection in the middle of a request, shutting down only the sending side, pipelining.
 */
final class RawHttp {

    private RawHttp() {}

    /** The bytes of a {@code POST} with a JSON body. */
    static byte[] post(String path, String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        String head =
                "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                        + body.length + "\r\n\r\n";
        byte[] out = new byte[head.length() + body.length];
        System.arraycopy(head.getBytes(StandardCharsets.US_ASCII), 0, out, 0, head.length());
        System.arraycopy(body, 0, out, head.length(), body.length);
        return out;
    }

    /** The bytes of a {@code GET} that asks the server to close the connection after answering it. */
    static byte[] getThenClose(String path) {
        return ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** Sends {@code request} on {@code socket}. */
    static void send(Socket socket, byte[] request) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(request);
        out.flush();
    }

    /**
     * One response (head and a body of its {@code Content-Length}), leaving the connection open
     * for the next request.
     */
    static String readResponse(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException(
                        "connection closed in the head of a response: " + head.toString(StandardCharsets.US_ASCII));
            }
            head.write(b);
        }
        String text = head.toString(StandardCharsets.US_ASCII);
        java.util.regex.Matcher length =
                java.util.regex.Pattern.compile("(?im)^content-length: *(\\d+)").matcher(text);
        if (!length.find()) {
            throw new IOException("a response without Content-Length: " + text);
        }
        return text + new String(in.readNBytes(Integer.parseInt(length.group(1))), StandardCharsets.UTF_8);
    }

    /** Everything the server sends until it closes the connection. */
    static String readToEnd(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] chunk = new byte[4096];
        int n;
        while ((n = in.read(chunk)) >= 0) {
            all.write(chunk, 0, n);
        }
        return all.toString(StandardCharsets.UTF_8);
    }
}

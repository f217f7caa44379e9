package io.zkfence.campaigns.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy in front of a replica: it passes calls, holds them back, and drops connections mid-call. */
class DelayProxyTest {

    private HttpServer upstream;
    private DelayProxy proxy;
    private final BlockingQueue<Long> arrivals = new ArrayBlockingQueue<>(10);
    private final CountDownLatch answer = new CountDownLatch(1);
    private final CountDownLatch waiting = new CountDownLatch(1);
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        upstream.createContext("/ok", exchange -> {
            arrivals.add(System.nanoTime());
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, 2);
            exchange.getResponseBody().write("ok".getBytes());
            exchange.close();
        });
        upstream.createContext("/wait", exchange -> {
            waiting.countDown();
            try {
                answer.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        upstream.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        upstream.start();
        proxy = new DelayProxy(upstream.getAddress().getPort());
    }

    @AfterEach
    void stop() {
        answer.countDown();
        proxy.close();
        upstream.stop(0);
    }

    private HttpRequest post(String path, Duration timeout) {
        return HttpRequest.newBuilder(URI.create(proxy.url() + path))
                .timeout(timeout)
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build();
    }

    @Test
    void withoutAFaultCallsPassBothWays() throws Exception {
        HttpResponse<String> r = http.send(post("/ok", Duration.ofSeconds(10)), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("ok");
    }

    @Test
    void aHeldRequestReachesTheReplicaOnlyWhenTheHoldEndsAfterItsClientGaveUp() throws Exception {
        long holdStart = System.nanoTime();
        DelayProxy.Held held = proxy.hold(Duration.ofMillis(1_500));
        assertThatThrownBy(() -> http.send(post("/ok", Duration.ofMillis(300)), HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(HttpTimeoutException.class);
        Long arrived = arrivals.poll(30, TimeUnit.SECONDS);
        assertThat(arrived).as("the held request was delivered late").isNotNull();
        assertThat(Duration.ofNanos(arrived - holdStart)).isGreaterThanOrEqualTo(Duration.ofMillis(1_500));
        assertThat(held.counts()[0]).as("reads from the client held").isPositive();
    }

    @Test
    void droppingTheConnectionsResetsACallInFlightOnBothSides() throws Exception {
        CompletableFuture<HttpResponse<String>> call =
                http.sendAsync(post("/wait", Duration.ofSeconds(30)), HttpResponse.BodyHandlers.ofString());
        assertThat(waiting.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(proxy.dropAll()).as("connections with a call in flight").isEqualTo(1);
        assertThatThrownBy(() -> call.get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IOException.class)
                .rootCause()
                .isNotInstanceOf(HttpTimeoutException.class);
    }
}

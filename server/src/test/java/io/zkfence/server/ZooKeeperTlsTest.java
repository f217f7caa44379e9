package io.zkfence.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.zkfence.testing.TlsZooKeeperServer;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica on a ZooKeeper server that speaks only TLS and requires client certificates, given
 * the TLS settings the way docs/server.md says: ZooKeeper's client properties as JVM options.
 */
class ZooKeeperTlsTest {

    @Test
    void aReplicaGivenZooKeepersTlsPropertiesGrantsLocksOverTls(@TempDir Path dir) throws Exception {
        try (TlsZooKeeperServer zk = TlsZooKeeperServer.start(dir)) {
            // The server's certificate is self-signed, so the replica uses the server's own pair: it
            // trusts that certificate and presents it as the client certificate the server requires.
            TlsZooKeeperServer.Stores stores = zk.stores();
            List<String> tls = List.of(
                    "-Dzookeeper.client.secure=true",
                    "-Dzookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty",
                    "-Dzookeeper.ssl.keyStore.location=" + stores.keyStore(),
                    "-Dzookeeper.ssl.keyStore.password=" + TlsZooKeeperServer.PASSWORD,
                    "-Dzookeeper.ssl.trustStore.location=" + stores.trustStore(),
                    "-Dzookeeper.ssl.trustStore.password=" + TlsZooKeeperServer.PASSWORD);
            try (ReplicaProcess replica = new ReplicaProcess(tls, "--no-auth", "--zookeeper", zk.connectString());
                    Socket http = new Socket("127.0.0.1", replica.port())) {
                http.setSoTimeout(30_000);

                RawHttp.send(
                        http,
                        RawHttp.post(
                                "/v1/locks/inventory:sku-tls/acquire", "{\"ownerId\":\"pod-a\",\"ttlMillis\":30000}"));
                String granted = RawHttp.readResponse(http);

                assertThat(granted).startsWith("HTTP/1.1 200").contains("\"fencingToken\":");
                RawHttp.send(http, RawHttp.getThenClose("/v1/locks/inventory:sku-tls"));
                assertThat(RawHttp.readResponse(http))
                        .startsWith("HTTP/1.1 200")
                        .contains("\"locked\":true")
                        .contains("\"ownerId\":\"pod-a\"");
            }
        }
    }
}

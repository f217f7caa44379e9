package org.apache.zookeeper;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * ZooKeeper's own client socket, with every connection to a server's client port sent through a
 * proxy instead: the fault campaign of the lock service gives each replica (a JVM running
 * {@code io.zkfence.server.ServerCommand}, unchanged) its own proxies this way, so that freezing
 * them cuts that replica off from ZooKeeper.
 *
 * <p>Why not just the proxies' addresses in {@code --zookeeper}: Curator's ensemble tracker reads
 * the servers' own client addresses from {@code /zookeeper/config} and replaces the connect string
 * with them, so after its first reconnect a client given proxies talks to the servers directly. The
 * replica's command builds its Curator client with the tracker on, and the campaign does not change
 * the command. Routing below the tracker, at the socket, holds whatever address it picks.
 *
 * <p>Chosen with ZooKeeper's documented client property
 * {@code -Dzookeeper.clientCnxnSocket=org.apache.zookeeper.RoutedClientCnxnSocket}; the routes come
 * from {@value #ROUTES} ({@code serverPort=proxyPort,...}, all on 127.0.0.1), as a system property or
 * a {@link ZKClientConfig} property. It lives in ZooKeeper's package because the socket's base class
 * and its methods are package-private there. A test fixture of the fault campaign, not for production.
 */
public final class RoutedClientCnxnSocket extends ClientCnxnSocketNIO {

    /** The property that holds the routes: {@code serverPort=proxyPort,...}. */
    public static final String ROUTES = "zkfence.faults.zookeeperRoutes";

    private final Map<Integer, Integer> routes;

    /**
     * Called by ZooKeeper's client, which finds the socket class by name.
     *
     * @throws IllegalArgumentException if the routes are malformed (naming the property)
     */
    public RoutedClientCnxnSocket(ZKClientConfig config) throws IOException {
        super(config);
        String spec = config.getProperty(ROUTES);
        this.routes = parse(spec != null ? spec : System.getProperty(ROUTES, ""));
    }

    /** {@code serverPort=proxyPort,...} as a map; empty for an empty text. */
    static Map<Integer, Integer> parse(String spec) {
        Map<Integer, Integer> routes = new HashMap<>();
        for (String route : spec.split(",")) {
            if (route.isBlank()) {
                continue;
            }
            String[] ports = route.strip().split("=");
            try {
                if (ports.length != 2) {
                    throw new NumberFormatException("not serverPort=proxyPort");
                }
                routes.put(Integer.parseInt(ports[0]), Integer.parseInt(ports[1]));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        ROUTES + " must be serverPort=proxyPort,...; '" + route + "' is not: " + e.getMessage(), e);
            }
        }
        return routes;
    }

    @Override
    void connect(InetSocketAddress server) throws IOException {
        Integer proxy = routes.get(server.getPort());
        super.connect(proxy == null ? server : new InetSocketAddress("127.0.0.1", proxy));
    }
}

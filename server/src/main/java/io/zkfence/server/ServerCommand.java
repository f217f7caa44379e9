package io.zkfence.server;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./zkfence-server}: one stateless replica of the lock service. Run as many as you like. */
@Command(name = "zkfence-server", mixinStandardHelpOptions = true,
        description = "The fenced lock service over HTTP: stateless replicas over one ZooKeeper ensemble.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:stopped", "1:could not start (ZooKeeper unreachable, port taken)", "2:bad arguments"})
public final class ServerCommand implements Callable<Integer> {

    @Option(names = "--zookeeper", required = true, description = "ZooKeeper connect string, e.g. zk1:2181,zk2:2181")
    String zookeeper;

    @Option(names = "--port", defaultValue = "8080", description = "HTTP port (0: any free port). Default: ${DEFAULT-VALUE}")
    int port;

    @Option(names = "--bind", defaultValue = "0.0.0.0", description = "Address to listen on. Default: ${DEFAULT-VALUE}")
    String bind;

    @Option(names = "--root", defaultValue = "/zkfence/service", description = "znode under which the service keeps its"
            + " locks. Default: ${DEFAULT-VALUE}")
    String root;

    /** Runs the command line; exits the JVM with its code. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new ServerCommand()).execute(args));
    }

    @Override
    public Integer call() throws InterruptedException {
        CuratorFramework zk = CuratorFrameworkFactory.newClient(zookeeper, 15_000, 5_000,
                new ExponentialBackoffRetry(100, 10, 2_000));
        zk.start();
        if (!zk.blockUntilConnected(15, TimeUnit.SECONDS)) {
            zk.close();
            System.err.println("zkfence-server: no connection to ZooKeeper at " + zookeeper + " within 15 s");
            return 1;
        }
        LockHttpServer server;
        try {
            server = new LockHttpServer(new LeaseStore(zk, root, Clock.systemUTC()), new InetSocketAddress(bind, port));
        } catch (java.io.IOException e) {
            zk.close();
            System.err.println("zkfence-server: cannot listen on " + bind + ":" + port + ": " + e.getMessage());
            return 1;
        }
        server.start();
        System.out.println("zkfence-server: listening on " + bind + ":" + server.port() + ", locks under " + root
                + " on " + zookeeper);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            zk.close();
            stopped.countDown();
        }));
        stopped.await();
        return 0;
    }
}

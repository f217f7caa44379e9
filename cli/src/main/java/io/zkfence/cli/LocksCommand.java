package io.zkfence.cli;

import io.zkfence.lock.ForcedRelease;
import io.zkfence.lock.LockAdmin;
import io.zkfence.lock.LockInfo;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code zkfence locks ...}. */
@Command(name = "locks", mixinStandardHelpOptions = true, description = "List, inspect, watch and force-release locks.")
final class LocksCommand {

    @ParentCommand
    ZkfenceCommand root;

    @Spec
    CommandSpec spec;

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "Every lock (or those whose names start"
                    + " with --prefix), in name order, with holder and waiters. Reads are synced with the leader.")
    int list(
            @Option(names = "--prefix", defaultValue = "", description = "Only names starting with this") String prefix,
            @Option(names = "--json", description = "One JSON array instead of lines") boolean json) {
        PrintWriter out = spec.commandLine().getOut();
        try (Connection.Opened c = root.connection.open();
                Stream<LockInfo> locks = c.client().admin().list(prefix)) {
            if (json) {
                out.println(Render.json(Render.maps(locks.toList())));
            } else {
                locks.forEach(info -> out.println(Render.line(info)));
            }
        }
        return ExitCodes.OK;
    }

    @Command(
            name = "inspect",
            mixinStandardHelpOptions = true,
            description = "One lock's holder and waiters, read"
                    + " after a sync with the leader. Exit code 4 if nobody holds it.")
    int inspect(
            @Parameters(paramLabel = "NAME", description = "The lock name") String name,
            @Option(names = "--json", description = "JSON instead of text") boolean json) {
        PrintWriter out = spec.commandLine().getOut();
        try (Connection.Opened c = root.connection.open()) {
            LockInfo info = c.client().admin().inspect(name);
            out.print(json ? Render.json(Render.map(info)) + "\n" : Render.details(info));
            return info.holder().isPresent() ? ExitCodes.OK : ExitCodes.NOT_HELD;
        }
    }

    @Command(
            name = "watch",
            mixinStandardHelpOptions = true,
            description = "Prints a line each time the lock"
                    + " changes hands, as it happens (a ZooKeeper watch on its queue), until interrupted or --changes lines"
                    + " were printed.")
    int watch(
            @Parameters(paramLabel = "NAME", description = "The lock name") String name,
            @Option(names = "--changes", defaultValue = "0", description = "Stop after this many lines (0: never)")
                    int changes)
            throws InterruptedException {
        if (changes < 0) {
            throw new CliException(ExitCodes.USAGE, "--changes must not be negative, was " + changes);
        }
        PrintWriter out = spec.commandLine().getOut();
        try (Connection.Opened c = root.connection.open()) {
            LockAdmin admin = c.client().admin();
            String path = c.client().lock(name).path();
            String last = null;
            int printed = 0;
            while (changes == 0 || printed < changes) {
                CountDownLatch changed = new CountDownLatch(1);
                armWatch(c, path, changed);
                LockInfo info = admin.inspect(name);
                String now = info.holder()
                        .map(h -> h.ownerId() + " token " + h.token())
                        .orElse("free");
                if (!Objects.equals(now, last)) {
                    out.println(Instant.now() + "\t" + name + "\t" + now + "\t"
                            + info.waiters().size() + " waiting");
                    out.flush();
                    last = now;
                    printed++;
                }
                if (changes == 0 || printed < changes) {
                    changed.await();
                }
            }
        }
        return ExitCodes.OK;
    }

    /** Counts {@code changed} down at the next change of the lock's queue (or of its znode's existence). */
    private static void armWatch(Connection.Opened c, String path, CountDownLatch changed) {
        Watcher w = event -> changed.countDown();
        try {
            c.curator().getChildren().usingWatcher(w).forPath(path);
        } catch (KeeperException.NoNodeException absent) {
            try {
                if (c.curator().checkExists().usingWatcher(w).forPath(path) != null) {
                    changed.countDown(); // created meanwhile: look again
                }
            } catch (Exception e) {
                throw new CliException(ExitCodes.UNAVAILABLE, "watching " + path + " failed: " + e);
            }
        } catch (Exception e) {
            throw new CliException(ExitCodes.UNAVAILABLE, "watching " + path + " failed: " + e);
        }
    }

    @Command(
            name = "force-release",
            mixinStandardHelpOptions = true,
            description = "Evicts the current holder"
                    + " (deletes exactly its queue node; its lease turns LOST, the next holder's token is higher) and records"
                    + " it in the audit log. Asks for confirmation unless --yes.")
    int forceRelease(
            @Parameters(paramLabel = "NAME", description = "The lock name") String name,
            @Option(names = "--reason", required = true, description = "Why: recorded in the audit log") String reason,
            @Option(names = "--yes", description = "Do not ask for confirmation") boolean yes)
            throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        try (Connection.Opened c = root.connection.open()) {
            LockAdmin admin = c.client().admin();
            LockInfo info = admin.inspect(name);
            if (info.holder().isEmpty()) {
                out.println("lock '" + name + "' is not held: nothing to release");
                return ExitCodes.NOT_HELD;
            }
            if (!yes) {
                LockInfo.Entry h = info.holder().get();
                out.print("Evict " + h.ownerId() + " (token " + h.token() + ") from lock '" + name + "'? Type yes: ");
                out.flush();
                String answer = root.in.readLine();
                if (!"yes".equals(answer == null ? null : answer.trim())) {
                    out.println("not confirmed: nothing done");
                    return ExitCodes.NOT_CONFIRMED;
                }
            }
            ForcedRelease done = admin.forceRelease(name, reason);
            out.println(Render.line(done));
            return done.outcome() == ForcedRelease.Outcome.RELEASED ? ExitCodes.OK : ExitCodes.NOT_HELD;
        }
    }
}

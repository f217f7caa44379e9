package io.zkfence.samples.demo;

import java.util.function.Consumer;

/** Tells each pod event on the timeline, in words a person reads once and understands. */
final class Narrator implements Consumer<PodEvent> {

    private final Timeline timeline;
    private long newestGrant;

    Narrator(Timeline timeline) {
        this.timeline = timeline;
    }

    @Override
    public synchronized void accept(PodEvent e) {
        String pod = e.pod();
        switch (e.kind()) {
            case "ready" ->
                timeline.add(
                        e.at(),
                        pod,
                        "JVM up (pid " + e.get("pid") + "), connected to ZooKeeper,"
                                + " PostgreSQL and S3 (S3 conditional writes verified)");
            case "asking" -> timeline.add(e.at(), pod, "asks for lock " + e.get("lock"));
            case "acquired" -> {
                newestGrant = Math.max(newestGrant, e.getLong("token"));
                timeline.add(
                        e.at(),
                        pod,
                        "acquired " + e.get("lock") + " -> fencing token " + e.get("token") + " (session timeout "
                                + e.get("ttl") + " ms)");
            }
            case "claimed" ->
                timeline.add(e.at(), pod, "claimed the fence: PostgreSQL now refuses tokens below " + e.get("token"));
            case "checked" ->
                timeline.add(
                        e.at(),
                        pod,
                        "order " + e.get("order") + " (" + e.get("quantity")
                                + (e.get("quantity").equals("1") ? " unit" : " units") + "): read stock "
                                + e.get("read") + ", will write " + e.get("write")
                                + "; lease.checkValid() passed (" + e.get("state") + ")");
            case "pause-point" -> timeline.add(e.at(), pod, "is on the line after checkValid(), about to write");
            case "writing" ->
                timeline.add(
                        e.at(),
                        pod,
                        "writes order " + e.get("order") + " with token "
                                + e.get("token")
                                + (e.getLong("token") < newestGrant
                                        ? " (stale: the lock has since been granted" + " with token " + newestGrant
                                                + ")"
                                        : "")
                                + "; its lease object says " + e.get("lease"));
            case "write" -> timeline.add(e.at(), pod, write(e));
            case "lease" ->
                timeline.add(
                        e.at(),
                        pod,
                        "lease " + e.get("from") + " -> " + e.get("to")
                                + (e.get("reason").isEmpty() ? "" : " (" + e.get("reason") + ")"));
            case "released" -> timeline.add(e.at(), pod, "released the lock");
            case "error" -> timeline.add(e.at(), pod, "ERROR: " + e.get("message"));
            case "exited" ->
                timeline.add(
                        e.at(),
                        pod,
                        "JVM exited (code " + e.get("code")
                                + switch (e.get("code")) {
                                    case "143" -> ": ended by the demo with SIGTERM)";
                                    case "137" -> ": killed by the demo with SIGKILL)";
                                    default -> ")";
                                });
            default -> {
                // "order-done" and "bye" only pace the demo.
            }
        }
    }

    private String write(PodEvent e) {
        String where = String.format("  %-8s  %-10s  ", e.get("copy"), ExtraStores.label(e.get("store")));
        boolean stale = e.getLong("token") < newestGrant;
        return switch (e.get("outcome")) {
            case "accepted" -> where + "accepted" + (stale ? "   <-- a stale write went through: lost update" : "");
            case "rejected" ->
                where + "REJECTED: " + simpleName(e.get("exception")) + ", the store holds token " + e.get("stored");
            default -> where + "FAILED: " + e.get("message");
        };
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}

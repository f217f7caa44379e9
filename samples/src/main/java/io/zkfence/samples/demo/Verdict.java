package io.zkfence.samples.demo;

import static io.zkfence.samples.demo.Inventory.Copy.FENCED;
import static io.zkfence.samples.demo.Inventory.Copy.UNFENCED;

import io.zkfence.lock.LockInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Did the story happen as told, and did fencing hold? Each check passes, fails, or was not
 * reached because the story stopped before it. A failed safety check (a fenced store accepted a
 * stale write) exits with {@link #STALE_WRITE_ACCEPTED}; any other failure, or a check not
 * reached, with {@link #STORY_NOT_AS_TOLD}.
 */
final class Verdict {

    static final int OK = 0;
    static final int STALE_WRITE_ACCEPTED = 1;
    static final int STORY_NOT_AS_TOLD = 3;

    enum Status {
        OK,
        FAIL,
        NOT_REACHED
    }

    /** One check; {@code safety} marks a failure of fencing itself. */
    record Check(boolean safety, Status status, String text) {
        boolean passed() {
            return status == Status.OK;
        }
    }

    private final List<Check> checks = new ArrayList<>();
    /** The stores named in the RESULT line: "PostgreSQL and S3", "PostgreSQL, S3, Redis and Azure Blob". */
    private String stores = "PostgreSQL and S3";

    private Verdict() {}

    List<Check> checks() {
        return List.copyOf(checks);
    }

    static Verdict of(StoryRecord r, Optional<FinalState> state) {
        Verdict v = new Verdict();
        List<String> labels = r.stores.stream().map(ExtraStores::label).toList();
        v.stores = String.join(", ", labels.subList(0, labels.size() - 1)) + " and " + labels.getLast();
        v.story(
                r.failure == null,
                r.failure == null ? "every step of the story happened" : "the story stopped early: " + r.failure);
        v.story(
                r.tokenA != null && r.tokenB != null,
                r.tokenA != null && r.tokenB != null && r.tokenB > r.tokenA,
                r.tokenB == null
                        ? "tokens increase from pod-A's grant to pod-B's"
                        : "tokens increase: pod-B's " + r.tokenB + " > pod-A's " + r.tokenA);
        v.story(
                !r.firstWritesOfA.isEmpty(),
                allAccepted(r, r.firstWritesOfA),
                "pod-A's first order was accepted by all " + 2 * r.stores.size() + " paths");
        v.story(
                r.grantedToBAt != null,
                expiredOnTheServers(r),
                "the servers expired pod-A's session while it was stopped"
                        + (r.grantedToBAt == null
                                ? ""
                                : " (pod-B was granted the lock "
                                        + Story.seconds(Duration.between(r.frozenAt, r.grantedToBAt))
                                        + " after the freeze, pod-A's node was"
                                        + " gone, pod-A's process state "
                                        + (r.procStateAtGrant == null || r.procStateAtGrant.isEmpty()
                                                ? "not readable"
                                                : r.procStateAtGrant)
                                        + ")"));
        v.story(
                r.resumedAt != null,
                r.resumedAt != null && Duration.between(r.frozenAt, r.resumedAt).compareTo(r.ttlA) > 0,
                "pod-A was frozen for longer than its session timeout");
        v.story(
                !r.writesOfB.isEmpty(),
                allAccepted(r, r.writesOfB),
                "pod-B's order was accepted by all " + 2 * r.stores.size() + " paths");
        v.story(!r.staleWritesOfA.isEmpty(), !r.staleWritesOfA.isEmpty(), "pod-A, resumed, wrote with its old token");

        for (String store : r.stores) {
            Optional<StoryRecord.Write> w =
                    r.staleWritesOfA.stream().filter(x -> x.is(FENCED, store)).findFirst();
            String text = "pod-A's stale write to " + label(store) + " through the fence was rejected"
                    + w.map(x -> " (outcome: " + x.outcome() + ")").orElse("");
            if (w.isEmpty()) {
                v.add(false, Status.NOT_REACHED, text);
            } else {
                String outcome = w.get().outcome();
                v.add(outcome.equals("accepted"), outcome.equals("rejected") ? Status.OK : Status.FAIL, text);
            }
        }
        for (String store : r.stores) {
            Optional<StoryRecord.Write> w =
                    r.staleWritesOfA.stream().filter(x -> x.is(UNFENCED, store)).findFirst();
            v.story(
                    w.isPresent(),
                    w.filter(x -> x.outcome().equals("accepted")).isPresent(),
                    "for contrast, the same write"
                            + " to " + label(store) + " without the fence went through"
                            + w.map(x -> " (outcome: " + x.outcome() + ")").orElse(""));
        }

        boolean bWrote = r.tokenB != null && allAccepted(r, r.writesOfB);
        Optional<FinalState> s = state.filter(x -> bWrote);
        Inventory.Stock row = s.map(x -> x.rows().get(FENCED)).orElse(null);
        v.holdsB(
                r,
                s.isPresent(),
                row == null ? null : row.writtenBy(),
                row == null ? null : row.token(),
                s.map(x -> x.consistent(FENCED)).orElse(false),
                "fenced PostgreSQL holds pod-B's write and adds up"
                        + (row == null
                                ? ""
                                : " (stock " + row.quantity() + ", written by " + row.writtenBy() + ", token "
                                        + row.token() + ")"));
        Optional<StockDocument> doc = s.flatMap(x -> x.objects().get(FENCED));
        Long objectToken = s.filter(x -> x.fencedObjectToken().isPresent())
                .map(x -> x.fencedObjectToken().getAsLong())
                .orElse(null);
        v.holdsB(
                r,
                s.isPresent(),
                doc.map(StockDocument::writtenBy).orElse(null),
                objectToken,
                true,
                "fenced S3 object holds pod-B's write"
                        + (s.isEmpty()
                                ? ""
                                : " (written by "
                                        + doc.map(StockDocument::writtenBy).orElse("nobody") + ", token metadata "
                                        + objectToken + ")"));
        for (String store : r.stores.subList(2, r.stores.size())) {
            Optional<ExtraStores.Held> held = s.map(x -> x.extras().get(store));
            Optional<StockDocument> fencedDoc = held.flatMap(ExtraStores.Held::fenced);
            Long token = held.filter(h -> h.token().isPresent())
                    .map(h -> h.token().getAsLong())
                    .orElse(null);
            v.holdsB(
                    r,
                    held.isPresent(),
                    fencedDoc.map(StockDocument::writtenBy).orElse(null),
                    token,
                    true,
                    "fenced " + label(store) + " holds pod-B's write"
                            + (held.isEmpty()
                                    ? ""
                                    : " (written by "
                                            + fencedDoc
                                                    .map(StockDocument::writtenBy)
                                                    .orElse("nobody") + ", fence token " + token + ")"));
        }
        Inventory.Stock plain = s.map(x -> x.rows().get(UNFENCED)).orElse(null);
        v.story(
                s.isPresent() && !r.staleWritesOfA.isEmpty(),
                plain != null && "pod-A".equals(plain.writtenBy()) && !s.get().consistent(UNFENCED),
                "the unfenced copy shows the lost update"
                        + (plain == null ? "" : ": pod-A's stale stock " + plain.quantity() + " overwrote pod-B's"));
        return v;
    }

    int exitCode() {
        if (checks.stream().anyMatch(c -> c.safety() && c.status() == Status.FAIL)) {
            return STALE_WRITE_ACCEPTED;
        }
        return checks.stream().allMatch(Check::passed) ? OK : STORY_NOT_AS_TOLD;
    }

    void print(Timeline out) {
        out.text("");
        out.text("Checks");
        for (Check c : checks) {
            out.text("  "
                    + switch (c.status()) {
                        case OK -> "[ok]  ";
                        case FAIL -> "[FAIL]";
                        case NOT_REACHED -> "[--]  ";
                    }
                    + " " + c.text() + (c.status() == Status.NOT_REACHED ? ": not reached" : ""));
        }
        out.text("");
        out.text(
                switch (exitCode()) {
                    case OK -> "RESULT: the paused holder's stale writes were rejected by " + stores + " (exit 0)";
                    case STALE_WRITE_ACCEPTED -> "RESULT: A STALE WRITE WAS ACCEPTED by a fenced store (exit 1)";
                    default -> "RESULT: the story did not happen as told (exit 3)";
                });
    }

    /** The fenced copy must be pod-B's; a lower (stale) token there is a safety failure. */
    private void holdsB(StoryRecord r, boolean reached, String writtenBy, Long token, boolean addsUp, String text) {
        if (!reached) {
            add(false, Status.NOT_REACHED, text);
            return;
        }
        boolean isB = "pod-B".equals(writtenBy) && r.tokenB.equals(token) && addsUp;
        boolean stale = token != null && token < r.tokenB;
        add(stale, isB ? Status.OK : Status.FAIL, text);
    }

    private void story(boolean passed, String text) {
        story(true, passed, text);
    }

    private void story(boolean reached, boolean passed, String text) {
        add(false, !reached ? Status.NOT_REACHED : passed ? Status.OK : Status.FAIL, text);
    }

    private void add(boolean safety, Status status, String text) {
        checks.add(new Check(safety, status, text));
    }

    private static boolean allAccepted(StoryRecord r, List<StoryRecord.Write> writes) {
        return writes.size() == 2 * r.stores.size()
                && writes.stream().allMatch(w -> w.outcome().equals("accepted"));
    }

    private static boolean expiredOnTheServers(StoryRecord r) {
        if (r.queueAtGrant == null
                || r.grantedToBAt == null
                || r.resumedAt != null && r.grantedToBAt.isAfter(r.resumedAt)) {
            return false;
        }
        Optional<LockInfo.Entry> holder = r.queueAtGrant.holder();
        boolean aGone =
                r.queueAtGrant.entries().stream().noneMatch(e -> e.ownerId().equals("pod-A"));
        return aGone
                && holder.isPresent()
                && holder.get().ownerId().equals("pod-B")
                && r.tokenB != null
                && holder.get().token() == r.tokenB;
    }

    private static String label(String store) {
        return ExtraStores.label(store);
    }
}

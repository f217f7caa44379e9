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

    private Verdict() {}

    List<Check> checks() {
        return List.copyOf(checks);
    }

    static Verdict of(StoryRecord r, Optional<FinalState> state) {
        Verdict v = new Verdict();
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
                allAccepted(r.firstWritesOfA),
                "pod-A's first order was accepted by all four paths");
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
        v.story(!r.writesOfB.isEmpty(), allAccepted(r.writesOfB), "pod-B's order was accepted by all four paths");
        v.story(!r.staleWritesOfA.isEmpty(), !r.staleWritesOfA.isEmpty(), "pod-A, resumed, wrote with its old token");

        for (String store : List.of("postgres", "s3")) {
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
        for (String store : List.of("postgres", "s3")) {
            Optional<StoryRecord.Write> w =
                    r.staleWritesOfA.stream().filter(x -> x.is(UNFENCED, store)).findFirst();
            v.story(
                    w.isPresent(),
                    w.filter(x -> x.outcome().equals("accepted")).isPresent(),
                    "for contrast, the same write"
                            + " to " + label(store) + " without the fence went through"
                            + w.map(x -> " (outcome: " + x.outcome() + ")").orElse(""));
        }

        boolean bWrote = r.tokenB != null && allAccepted(r.writesOfB);
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
                    case OK -> "RESULT: the paused holder's stale writes were rejected by PostgreSQL and S3 (exit 0)";
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

    private static boolean allAccepted(List<StoryRecord.Write> writes) {
        return writes.size() == 4 && writes.stream().allMatch(w -> w.outcome().equals("accepted"));
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
        return store.equals("postgres") ? "PostgreSQL" : "S3";
    }
}

package io.zkfence.samples.demo;

import static io.zkfence.samples.demo.Inventory.Copy.FENCED;
import static io.zkfence.samples.demo.Inventory.Copy.UNFENCED;

import io.zkfence.lock.LockInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Did the story happen as told, and did fencing hold? Each check passes or fails with a reason.
 * A failed safety check (a stale write accepted by a fenced store) exits with
 * {@link #STALE_WRITE_ACCEPTED}; any other failure with {@link #STORY_NOT_AS_TOLD}.
 */
final class Verdict {

    static final int OK = 0;
    static final int STALE_WRITE_ACCEPTED = 1;
    static final int STORY_NOT_AS_TOLD = 3;

    /** One check; {@code safety} marks the ones about fencing itself. */
    record Check(boolean safety, boolean passed, String text) {
    }

    private final List<Check> checks = new ArrayList<>();

    private Verdict() {
    }

    List<Check> checks() {
        return List.copyOf(checks);
    }

    static Verdict of(StoryRecord r, Optional<FinalState> state) {
        Verdict v = new Verdict();
        v.story(r.failure == null, r.failure == null ? "every step of the story happened"
                : "the story stopped early: " + r.failure);
        v.story(r.tokenA != null && r.tokenB != null && r.tokenB > r.tokenA,
                "tokens increase: pod-B's " + r.tokenB + " > pod-A's " + r.tokenA);
        v.story(allAccepted(r.firstWritesOfA), "pod-A's first order was accepted by all four paths");
        v.story(expiredOnTheServers(r), "the servers expired pod-A's session while it was stopped (pod-B was granted"
                + " the lock " + (r.grantedToBAt == null || r.frozenAt == null ? "-"
                        : Story.seconds(Duration.between(r.frozenAt, r.grantedToBAt))) + " after the freeze,"
                + " pod-A's node was gone, pod-A's process state " + (r.procStateAtGrant == null || r.procStateAtGrant.isEmpty()
                        ? "not readable" : r.procStateAtGrant) + ")");
        v.story(r.resumedAt != null && Duration.between(r.frozenAt, r.resumedAt).compareTo(r.ttlA) > 0,
                "pod-A was frozen for longer than its session timeout");
        v.story(allAccepted(r.writesOfB), "pod-B's order was accepted by all four paths");
        v.story(!r.staleWritesOfA.isEmpty(), "pod-A, resumed, attempted its write with its old token");

        for (String store : List.of("postgres", "s3")) {
            r.staleWritesOfA.stream().filter(w -> w.is(FENCED, store)).findFirst().ifPresent(w -> v.fenced(w.outcome(),
                    "pod-A's stale write to " + label(store) + " through the fence was rejected (outcome: " + w.outcome() + ")"));
        }
        r.staleWritesOfA.stream().filter(w -> w.copy().equals(UNFENCED.label())).forEach(w ->
                v.story(w.outcome().equals("accepted"), "for contrast, the same write to " + label(w.store())
                        + " without the fence went through (outcome: " + w.outcome() + ")"));

        state.filter(s -> r.tokenB != null && allAccepted(r.writesOfB)).ifPresent(s -> {
            Inventory.Stock row = s.rows().get(FENCED);
            v.holdsB(r, row.writtenBy(), row.token(), s.consistent(FENCED), "fenced PostgreSQL holds pod-B's write"
                    + " and adds up (stock " + row.quantity() + ", written by " + row.writtenBy() + ", token " + row.token() + ")");
            Optional<StockDocument> doc = s.objects().get(FENCED);
            Long objectToken = s.fencedObjectToken().isPresent() ? s.fencedObjectToken().getAsLong() : null;
            v.holdsB(r, doc.map(StockDocument::writtenBy).orElse(null), objectToken, true,
                    "fenced S3 object holds pod-B's write (written by " + doc.map(StockDocument::writtenBy).orElse("nobody")
                            + ", token metadata " + objectToken + ")");
            Inventory.Stock plain = s.rows().get(UNFENCED);
            v.story("pod-A".equals(plain.writtenBy()) && !s.consistent(UNFENCED),
                    "the unfenced copy shows the lost update: pod-A's stale stock " + plain.quantity()
                            + " overwrote pod-B's");
        });
        if (state.isEmpty()) {
            v.story(false, "the stores' final state could be read");
        }
        return v;
    }

    int exitCode() {
        if (checks.stream().anyMatch(c -> c.safety() && !c.passed())) {
            return STALE_WRITE_ACCEPTED;
        }
        return checks.stream().allMatch(Check::passed) ? OK : STORY_NOT_AS_TOLD;
    }

    void print(Timeline out) {
        out.text("");
        out.text("Checks");
        for (Check c : checks) {
            out.text("  " + (c.passed() ? "[ok]  " : "[FAIL]") + " " + c.text());
        }
        out.text("");
        out.text(switch (exitCode()) {
            case OK -> "RESULT: the paused holder's stale writes were rejected by PostgreSQL and S3 (exit 0)";
            case STALE_WRITE_ACCEPTED -> "RESULT: A STALE WRITE WAS ACCEPTED by a fenced store (exit 1)";
            default -> "RESULT: the story did not happen as told (exit 3)";
        });
    }

    /** A fenced store's answer to a stale write: accepted breaks safety, anything but "rejected" breaks the story. */
    private void fenced(String outcome, String text) {
        checks.add(new Check(outcome.equals("accepted"), outcome.equals("rejected"), text));
    }

    /** The fenced copy must be pod-B's; a stale token there breaks safety, anything else the story. */
    private void holdsB(StoryRecord r, String writtenBy, Long token, boolean addsUp, String text) {
        boolean isB = "pod-B".equals(writtenBy) && r.tokenB.equals(token) && addsUp;
        boolean stale = token != null && token < r.tokenB;
        checks.add(new Check(stale, isB, text));
    }

    private void story(boolean passed, String text) {
        checks.add(new Check(false, passed, text));
    }

    private static boolean allAccepted(List<StoryRecord.Write> writes) {
        return writes.size() == 4 && writes.stream().allMatch(w -> w.outcome().equals("accepted"));
    }

    private static boolean expiredOnTheServers(StoryRecord r) {
        if (r.queueAtGrant == null || r.grantedToBAt == null || r.resumedAt != null && r.grantedToBAt.isAfter(r.resumedAt)) {
            return false;
        }
        Optional<LockInfo.Entry> holder = r.queueAtGrant.holder();
        boolean aGone = r.queueAtGrant.entries().stream().noneMatch(e -> e.ownerId().equals("pod-A"));
        return aGone && holder.isPresent() && holder.get().ownerId().equals("pod-B")
                && r.tokenB != null && holder.get().token() == r.tokenB;
    }

    private static String label(String store) {
        return store.equals("postgres") ? "PostgreSQL" : "S3";
    }
}

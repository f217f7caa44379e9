package io.zkfence.campaigns.service;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which clocks may have written a lease's {@code expiresAt}, and so by how much a skew may end it
 * before an answer's validity. A replica answers a validity by its clock against the entry's
 * {@code expiresAt}, and any replica ends the lease when its own clock passes that number; but the
 * number may have been written by another clock than the answering one: a later renewal's, the
 * other copy of a hedged acquire (which confirms the entry one copy answered unconfirmed, whether
 * its own 200 was heard or the worker cancelled it), a call whose answer was lost. The lowest of
 * those clocks puts the end latest in true time, and the largest clock of any replica at the time
 * earliest: their difference is the allowance. Both promise 1 ({@link LeaseEnds}) and promise 5
 * ({@link Overlaps}) judge a lease's early end by it, so that one event is judged alike by both.
 */
final class ExpiryWriters {

    private final Map<Long, List<AnsweredLeases.Answer>> byToken = new HashMap<>();
    /** Calls that may have written a lease's expiresAt though no 200 of theirs was heard, by owner. */
    private final Map<String, List<ServiceLog.Call>> unheard = new HashMap<>();

    private final Clocks clocks;

    ExpiryWriters(List<AnsweredLeases.Answer> answers, List<ServiceLog.Call> calls, Clocks clocks) {
        this.clocks = clocks;
        for (AnsweredLeases.Answer a : answers) {
            byToken.computeIfAbsent(a.token(), t -> new ArrayList<>()).add(a);
        }
        for (ServiceLog.Call c : calls) {
            if (c.status() != 200 && ("acquire".equals(c.op()) || "renew".equals(c.op()))) {
                unheard.computeIfAbsent(c.owner(), o -> new ArrayList<>()).add(c);
            }
        }
    }

    /**
     * The lowest offset of the clocks that may have written {@code a}'s lease's {@code expiresAt}
     * after {@code a}'s read and by {@code by}: those of the lease's 200s heard from calls still out
     * when {@code a}'s request was sent (its own, each later renewal's, the other copy of a hedged
     * acquire answered too) and, for each call of the lease without a 200 heard that was sent by
     * then, the lowest clock its replica ran with while the call could act there. A call answered
     * otherwise acted until its answer; one whose answer never came (cancelled, lost, timed out)
     * may act on its replica after that, so until {@code by}.
     */
    long lowest(AnsweredLeases.Answer a, long by) {
        long token = a.token();
        // a itself is among them: every answer was indexed, and it was heard after it was sent
        long lowest = clocks.lowestOffset(byToken.get(token).stream()
                .filter(b -> b.heardAt() >= a.sentAt())
                .toList());
        for (ServiceLog.Call c : unheard.getOrDefault(a.owner(), List.of())) {
            if (!"acquire".equals(c.op()) && c.lease() != token && c.lease() != 0) {
                continue; // a renewal of another lease of the same owner
            }
            long actedUntil = c.status() == 0 ? by : Math.min(by, c.doneAt());
            if (c.sentAt() <= by && actedUntil >= a.sentAt()) {
                lowest = Math.min(lowest, clocks.lowestWhileOut(c.replica(), c.sentAt(), actedUntil));
            }
        }
        return lowest;
    }

    /**
     * How much earlier than {@code a}'s validity a skew may have ended its lease by {@code by}: the
     * largest offset any replica ran with from {@code from} to {@code to} less {@link #lowest}, and
     * the measurement's few milliseconds.
     */
    long allowance(AnsweredLeases.Answer a, long by, long from, long to) {
        return clocks.allowanceBelow(lowest(a, by), from, to);
    }
}

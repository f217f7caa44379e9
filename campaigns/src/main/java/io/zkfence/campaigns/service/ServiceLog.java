package io.zkfence.campaigns.service;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zkfence.campaigns.Attempt;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the service campaign's workers log, one JSON object a line, the Java and the Python worker
 * alike ({@code "t"} names the kind). Every line carries the worker and its incarnation (a worker
 * is killed and started again many times); the owner id of each request is
 * {@code <worker>.<incarnation>.<n>}, so that a lease seen at the service names its request.
 * Lock tokens are bearer credentials and are never logged; fencing tokens identify grants.
 */
final class ServiceLog {

    private static final ObjectMapper JSON =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private ServiceLog() {}

    /**
     * One HTTP call and its answer ({@code "t":"call"}).
     *
     * @param op           {@code acquire}, {@code renew}, {@code release}
     * @param replica      the replica it was sent to ({@code r0}, ...)
     * @param hedge        an acquire sent to two replicas at once; this is one of the two
     * @param status       the HTTP status, 0 for a transport failure (then {@code code} is {@code timeout} or {@code io})
     * @param validFor     {@code validForMillis} when the answer had it, else -1
     * @param lease        for a renew or a release, the fencing token of the lease it was for (a
     *                     request's second lease, released at once, has its own); 0 for an acquire
     */
    record Call(
            String worker,
            String inc,
            String thread,
            String owner,
            String request,
            String key,
            String op,
            String replica,
            boolean hedge,
            long sentAt,
            long doneAt,
            int status,
            String code,
            long fencingToken,
            long expiresAt,
            long validFor,
            String currentOwner,
            Boolean wasHeld,
            String outcome,
            String detail,
            long lease) {

        /**
         * The call {@code op} sent at {@code sentAt} and its answer {@code a}, done now. A problem's
         * detail may name queue entries, whose names carry lock tokens: only a transport failure's
         * text is kept.
         */
        static Call answered(
                String worker,
                String inc,
                String thread,
                String owner,
                String request,
                String key,
                String op,
                String replica,
                boolean hedge,
                long sentAt,
                ServiceCalls.Answer a,
                long lease) {
            return new Call(
                    worker,
                    inc,
                    thread,
                    owner,
                    request,
                    key,
                    op,
                    replica,
                    hedge,
                    sentAt,
                    System.currentTimeMillis(),
                    a.status(),
                    a.code(),
                    a.fencingToken(),
                    a.expiresAt(),
                    a.validForMillis(),
                    a.currentOwner(),
                    a.wasHeld(),
                    a.outcome(),
                    a.status() == 0 ? a.detail() : null,
                    lease);
        }

        boolean granted() {
            return "acquire".equals(op) && status == 200;
        }
    }

    /**
     * How a request (one requestId, all its attempts) ended ({@code "t":"req"}).
     *
     * @param result {@code granted}, {@code held} (409 LOCK_ALREADY_HELD), {@code finished} (409
     *               REQUEST_FINISHED), {@code error} (another 4xx), {@code abandoned} (no final answer
     *               within the worker's budget) or {@code stopped} (the worker was told to stop)
     */
    record RequestEnd(
            String worker,
            String inc,
            String owner,
            String request,
            String key,
            long ttl,
            boolean waiting,
            long waitMillis,
            long startAt,
            long endAt,
            String result,
            long fencingToken) {}

    /**
     * A lease its worker believed it held, from the grant's answer to the end of that belief
     * ({@code "t":"hold"}).
     *
     * @param end {@code released} (the worker released it), {@code deadline} (its local deadline passed:
     *            the send time of the last acquire or renew that succeeded plus its validity),
     *            {@code lost} (a renew was refused) or {@code stopped}
     */
    record Hold(
            String worker,
            String inc,
            String owner,
            String request,
            String key,
            long fencingToken,
            long fromAt,
            long toAt,
            String end) {}

    /**
     * One fenced write to PostgreSQL under a lease ({@code "t":"write"}).
     *
     * @param inDeadline whether the worker's local deadline had not passed when it began the write
     */
    record Write(
            String attempt,
            String worker,
            String inc,
            String thread,
            String owner,
            String key,
            String resource,
            long fencingToken,
            long startAt,
            long endAt,
            String jdbc,
            boolean inDeadline) {

        Attempt toAttempt() {
            return new Attempt(
                    attempt,
                    worker,
                    resource,
                    fencingToken,
                    inDeadline ? "HELD" : "PAST_DEADLINE",
                    jdbc,
                    "none",
                    startAt,
                    endAt,
                    "none",
                    worker + "." + inc + "." + thread);
        }
    }

    /** Everything the workers logged. {@code exited}: incarnations that stopped when told to (the others were killed). */
    record Logs(List<Call> calls, List<RequestEnd> requests, List<Hold> holds, List<Write> writes, Set<String> exited) {

        List<Attempt> attempts() {
            return writes.stream().map(Write::toAttempt).toList();
        }
    }

    static Logs read(Collection<Path> files) {
        List<Call> calls = new ArrayList<>();
        List<RequestEnd> requests = new ArrayList<>();
        List<Hold> holds = new ArrayList<>();
        List<Write> writes = new ArrayList<>();
        Set<String> exited = new HashSet<>();
        for (Path file : files) {
            if (!Files.exists(file)) {
                continue;
            }
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (String line : lines) {
                JsonNode node;
                try {
                    node = JSON.readTree(line);
                } catch (IOException torn) {
                    continue; // the last line of a worker killed mid-write: nothing to judge
                }
                if (node == null || !node.isObject()) {
                    continue;
                }
                try {
                    switch (node.path("t").asText()) {
                        case "call" -> calls.add(JSON.treeToValue(node, Call.class));
                        case "req" -> requests.add(JSON.treeToValue(node, RequestEnd.class));
                        case "hold" -> holds.add(JSON.treeToValue(node, Hold.class));
                        case "write" -> writes.add(JSON.treeToValue(node, Write.class));
                        case "bye" ->
                            exited.add(node.path("worker").asText() + "."
                                    + node.path("inc").asText());
                        default -> {
                            // a kind this reader does not judge
                        }
                    }
                } catch (IOException malformed) {
                    throw new IllegalStateException(
                            "a worker logged a malformed line in " + file + ": " + line, malformed);
                }
            }
        }
        return new Logs(calls, requests, holds, writes, exited);
    }

    /** One line of the log: the record's fields and its kind. */
    static String line(String kind, Record r) {
        JsonNode node = JSON.valueToTree(r);
        ((ObjectNode) node).put("t", kind);
        try {
            return JSON.writeValueAsString(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

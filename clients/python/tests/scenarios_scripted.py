"""The conformance scenarios against a scripted replica (scripted.py): the client's side of the
contract, including answers only the redesigned service gives (validForMillis, 429, 413, ...)."""

import time
import unittest
import uuid
from typing import Any, Callable, Dict, List, Optional, Union

import support  # noqa: F401  (first: puts the package's source on the path)
import zkfence
from conformance import scenario
from scenarios_service import Captured
from scripted import HANG_UP, NEVER, Reply, Request, ScriptedReplica, grant, problem
from support import PATIENCE, await_true

KEY = "conf:scripted"


def released(request: Request, n: int) -> Reply:
    return Reply(200, {"lockKey": KEY, "status": "RELEASED", "wasHeld": True})


def renewed(valid_for: Optional[int] = None) -> Callable[[Request, int], Reply]:
    def answer(request: Request, n: int) -> Reply:
        body: Dict[str, Any] = {"lockKey": KEY, "expiresAt": int(time.time() * 1000) + 30000}
        if valid_for is not None:
            body["validForMillis"] = valid_for
        return Reply(200, body)
    return answer


class ScriptedCase(unittest.TestCase):

    def replica(self, acquire: Callable[[Request, int], Union[Reply, str]],
                renew: Callable[[Request, int], Union[Reply, str]] = renewed(),
                release: Callable[[Request, int], Union[Reply, str]] = released) -> ScriptedReplica:
        by_kind = {"acquire": acquire, "renew": renew, "release": release}
        replica = ScriptedReplica(lambda request, n: by_kind[request.path.rsplit("/", 1)[-1]](request, n))
        self.addCleanup(replica.close)
        return replica


@scenario("deadline-counts-from-send-time")
def deadline_from_send(t: ScriptedCase) -> None:
    r = t.replica(lambda req, n: grant(valid_for=1000, delay=0.6))
    lease = zkfence.Client([r.url]).acquire(KEY, ttl=30, wait=0, auto_renew=False)
    t.assertLessEqual(lease.remaining(), 0.4)
    lease.release()


@scenario("deadline-fallback-ttl-from-send-time")
def deadline_fallback(t: ScriptedCase) -> None:
    r = t.replica(lambda req, n: grant(valid_for=None, delay=0.6))
    lease = zkfence.Client([r.url]).acquire(KEY, ttl=1, wait=0, auto_renew=False)
    t.assertLessEqual(lease.remaining(), 0.4)
    lease.release()


@scenario("renews-at-third-of-validity")
def renews_at_third(t: ScriptedCase) -> None:
    r = t.replica(lambda req, n: grant(valid_for=3000), renew=renewed(valid_for=3000))
    lease = zkfence.Client([r.url]).acquire(KEY, ttl=60, wait=0)
    await_true("three renewals", lambda: len(r.of("renew")) >= 3, timeout=15)
    t.assertFalse(lease.lost.is_set())
    t.assertTrue(lease.valid)
    t.assertEqual({req.body["ttlMillis"] for req in r.of("renew")}, {60000})
    lease.release()


@scenario("error-codes-are-typed")
def error_codes(t: ScriptedCase) -> None:
    cases: List[Any] = [
        (problem(400, "BAD_REQUEST", "ttlMillis must be a whole number"), zkfence.BadRequest, {}),
        (problem(401, "UNAUTHORIZED", "no API key"), zkfence.Unauthorized, {}),
        (problem(403, "NAMESPACE_FORBIDDEN", "not yours"), zkfence.Forbidden, {}),
        (problem(403, "ADMIN_REQUIRED", "admins only"), zkfence.Forbidden, {}),
        (problem(409, "LOCK_ALREADY_HELD", "held by 'x'", currentOwner="x", retryAfterMillis=1500), zkfence.LockHeld,
         {"owner": "x", "retry_after": 1.5}),
        (Reply(409, {"error": "LOCK_ALREADY_HELD", "detail": "held", "status": 409}, {"Retry-After": "3"}),
         zkfence.LockHeld, {"retry_after": 3.0}),
        (problem(409, "REQUEST_FINISHED", "finished", outcome="RELEASED"), zkfence.RequestFinished,
         {"outcome": "RELEASED"}),
        (problem(413, "PAYLOAD_TOO_LARGE", "body over 64 KiB"), zkfence.PayloadTooLarge, {}),
        (problem(429, "TOO_MANY_WAITERS", "queue full", retryAfterMillis=700), zkfence.TooManyWaiters,
         {"retry_after": 0.7}),
        (problem(500, "INTERNAL", "boom"), zkfence.ServerError, {}),
        (problem(418, "TEAPOT", "unknown code"), zkfence.ServerError, {}),
        (Reply(200, b"<html>not json</html>"), zkfence.ServerError, {}),
    ]
    r = t.replica(lambda req, n: cases[n][0])
    c = zkfence.Client([r.url], timeout=2)
    for i, (reply, kind, fields) in enumerate(cases):
        with t.subTest(answer=i, kind=kind.__name__):
            with t.assertRaises(kind) as raised:
                c.acquire(KEY, ttl=5, wait=0, request_id="rid-%d" % i)
            e = raised.exception
            t.assertIs(type(e), kind)
            if isinstance(reply.body, dict):
                t.assertEqual((e.status, e.code), (reply.status, reply.body["error"]))
                t.assertIn(reply.body["detail"], str(e))
            for name, value in fields.items():
                t.assertEqual(getattr(e, name), value)
    t.assertEqual(len(r.of("acquire")), len(cases), "none of them retried")


@scenario("too-many-waiters-retried-with-same-request-id")
def too_many_waiters(t: ScriptedCase) -> None:
    r = t.replica(lambda req, n: problem(429, "TOO_MANY_WAITERS", "full", retryAfterMillis=200) if n == 0
                  else grant())
    lease = zkfence.Client([r.url]).acquire(KEY, ttl=5, wait=5)
    first, second = r.of("acquire")
    t.assertEqual(first.body["requestId"], second.body["requestId"])
    t.assertEqual(lease.request_id, first.body["requestId"])
    t.assertGreaterEqual(second.at - r.answered[0], 0.2 - 0.01)
    lease.release()


@scenario("request-finished-after-retry-starts-new-request")
def request_finished_after_retry(t: ScriptedCase) -> None:
    script = [HANG_UP, problem(409, "REQUEST_FINISHED", "gave up", outcome="GAVE_UP"), grant()]
    r = t.replica(lambda req, n: script[n])
    lease = zkfence.Client([r.url]).acquire(KEY, ttl=5, wait=5)
    rids = [req.body["requestId"] for req in r.of("acquire")]
    t.assertEqual(len(rids), 3)
    t.assertEqual(rids[0], rids[1])
    t.assertNotEqual(rids[1], rids[2])
    t.assertEqual(lease.request_id, rids[2])
    lease.release()


@scenario("retry-after-honoured")
def retry_after(t: ScriptedCase) -> None:
    first = problem(503, "UNAVAILABLE", "busy")
    r = t.replica(lambda req, n: Reply(first.status, first.body, {"Retry-After": "1"}) if n == 0 else grant())
    lease = zkfence.Client([r.url]).acquire(KEY, ttl=5, wait=5)
    t.assertGreaterEqual(r.of("acquire")[1].at - r.answered[0], 1.0 - 0.01)
    lease.release()


@scenario("all-replicas-failing-ends-within-bound")
def all_failing(t: ScriptedCase) -> None:
    down = [t.replica(lambda req, n: problem(503, "UNAVAILABLE", "ZooKeeper unreachable")) for _ in range(2)]
    start = time.monotonic()
    with t.assertRaises(zkfence.Unavailable) as failed:
        zkfence.Client([d.url for d in down], timeout=1).acquire(KEY, ttl=5, wait=0.5)
    t.assertLess(time.monotonic() - start, 1.5 + 5)
    cause = failed.exception.__cause__
    t.assertIsInstance(cause, zkfence.Unavailable)
    t.assertEqual((cause.status, cause.code), (503, "UNAVAILABLE"))
    attempts = [req for d in down for req in d.of("acquire")]
    t.assertTrue(all(d.of("acquire") for d in down), "both replicas were tried")
    t.assertGreater(len(attempts), 2)
    t.assertEqual(len({req.body["requestId"] for req in attempts}), 1)


@scenario("timeout-follows-wait")
def timeout_follows_wait(t: ScriptedCase) -> None:
    r = t.replica(lambda req, n: NEVER)
    start = time.monotonic()
    with t.assertRaises(zkfence.Unavailable):
        zkfence.Client([r.url], timeout=1).acquire(KEY, ttl=5, wait=1)
    elapsed = time.monotonic() - start
    t.assertGreaterEqual(elapsed, 2.0 - 0.05)
    t.assertLess(elapsed, 2.0 + 5)
    t.assertLessEqual(r.of("acquire")[0].body["waitMillis"], 1000)


@scenario("server-detail-with-lock-token-redacted")
def detail_redacted(t: ScriptedCase) -> None:
    token = "lock-token-SECRET-" + uuid.uuid4().hex
    r = t.replica(lambda req, n: grant(token=token, valid_for=30000),
                  renew=lambda req, n: problem(400, "BAD_REQUEST", "lockToken '%s' is malformed" % token))
    with Captured() as log:
        lease = zkfence.Client([r.url]).acquire(KEY, ttl=30, wait=0, auto_renew=False)
        with t.assertRaises(zkfence.BadRequest) as refused:
            lease.renew()
    t.assertIn("is malformed", str(refused.exception))
    t.assertNotIn(token, str(refused.exception))
    t.assertNotIn(token, refused.exception.detail)
    for record in log.records:
        t.assertNotIn(token, record.getMessage())
    lease.release()


@scenario("renewal-refused-loses-lease-at-once")
def renewal_refused(t: ScriptedCase) -> None:
    r = t.replica(lambda req, n: grant(valid_for=3000),
                  renew=lambda req, n: problem(403, "NOT_LOCK_OWNER", "not yours"))
    calls: List[zkfence.Lease] = []
    lease = zkfence.Client([r.url]).acquire(KEY, ttl=30, wait=0, on_lost=calls.append)
    deadline = time.monotonic() + lease.remaining()
    t.assertTrue(lease.lost.wait(PATIENCE))
    t.assertLess(time.monotonic(), deadline)
    t.assertIsInstance(lease.lost_reason, zkfence.NotLockOwner)
    await_true("the lost callback ran once", lambda: calls == [lease])
    with t.assertRaises(zkfence.LeaseLost) as lost:
        lease.check()
    t.assertIsInstance(lost.exception.reason, zkfence.NotLockOwner)
    t.assertFalse(lease.release())
    t.assertEqual(r.of("release"), [])


@scenario("bad-arguments-refused")
def bad_arguments(t: ScriptedCase) -> None:
    r = t.replica(lambda req, n: grant())
    for make, named in [(lambda: zkfence.Client([]), "replicas"),
                        (lambda: zkfence.Client("http://a:8080"), "replicas"),
                        (lambda: zkfence.Client(["ftp://a:21"]), "ftp://a:21"),
                        (lambda: zkfence.Client([r.url], timeout=0), "timeout")]:
        with t.subTest(named=named):
            with t.assertRaises((ValueError, TypeError)) as refused:
                make()
            t.assertIn(named, str(refused.exception))
    c = zkfence.Client([r.url])
    for kwargs, named in [(dict(key=KEY, ttl=0), "ttl"), (dict(key=KEY, wait=-1), "wait"),
                          (dict(key="  "), "key"), (dict(key="conf:" + "é" * 130), "key"),
                          (dict(key=KEY, request_id=""), "request_id")]:
        with t.subTest(named=named, kwargs=repr(kwargs)[:40]):
            with t.assertRaises((ValueError, TypeError)) as refused:
                c.acquire(**kwargs)
            t.assertIn(named, str(refused.exception))
    t.assertEqual(r.requests, [])

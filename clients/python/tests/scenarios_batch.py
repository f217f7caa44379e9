"""The batch renewal scenarios (``Client.renew_all``, ``POST /v1/leases/renew``): against the real
service (ServiceCase) and a scripted replica (ScriptedCase)."""

import asyncio
import time
from typing import Any, Dict, List, Optional

import support  # noqa: F401  (first: puts the package's source on the path)
import zkfence
import zkfence.aio
from cluster import APP_KEY, OPS_KEY
from conformance import scenario
from proxy import LossyProxy
from scenarios_scripted import ScriptedCase, released
from scenarios_service import Captured, ServiceCase
from scripted import Reply, Request, grant
from support import await_true


def _acquire(t: ServiceCase, c: zkfence.Client, n: int, *, ttl: float, **kw: Any) -> List[zkfence.Lease]:
    keys = ["%s-%d" % (t.key, i) for i in range(n)]
    return list(t.pool.map(lambda k: c.acquire(k, ttl=ttl, wait=0, auto_renew=False, **kw), keys))


def _batch_sends(log: Captured) -> List[str]:
    return [r.getMessage() for r in log.records if r.getMessage().startswith("batch renewal") and "sending" in r.getMessage()]


def _expires_at(t: ServiceCase, key: str) -> int:
    return t.cluster.status(key)["expiresAt"]


@scenario("batch-renewal-renews-every-lease")
def batch_renews_every_lease(t: ServiceCase) -> None:
    c = t.client(t.a, t.b)
    leases = _acquire(t, c, 3, ttl=3)
    granted = [_expires_at(t, lease.key) for lease in leases]
    await_true("1 s of the leases' validity passed", lambda: all(lease.remaining() < 2.0 for lease in leases))
    with Captured() as log:
        outcomes = c.renew_all(leases)
    sends = _batch_sends(log)
    t.assertEqual(len(sends), 1, sends)
    t.assertIn("batch renewal of 3 leases", sends[0])
    for lease, outcome, first in zip(leases, outcomes, granted):
        t.assertIs(outcome.lease, lease)
        t.assertEqual((outcome.renewed, outcome.error, outcome.lost), (True, None, False))
        t.assertTrue(lease.valid)
        t.assertGreater(lease.remaining(), 2.0)
        t.assertEqual(_expires_at(t, lease.key), outcome.expires_at)
        t.assertGreaterEqual(outcome.expires_at, first + 500)
        t.assertEqual(lease.expires_at, outcome.expires_at)
        t.assertGreater(outcome.valid_for, 2.0)
    for lease in leases:
        t.assertTrue(lease.release())

    # zkfence.aio: the same, with the asyncio client's leases.
    async def with_asyncio() -> None:
        ac = zkfence.aio.Client([t.a.url, t.b.url], api_key=APP_KEY)
        aleases = [await ac.acquire("%s-aio-%d" % (t.key, i), ttl=3, wait=0, auto_renew=False) for i in range(3)]
        first = [await ac.status(lease.key) for lease in aleases]
        while not all(lease.remaining() < 2.0 for lease in aleases):
            await asyncio.sleep(0.05)
        aoutcomes = await ac.renew_all(aleases)
        for lease, outcome, status in zip(aleases, aoutcomes, first):
            t.assertIs(outcome.lease, lease)
            t.assertTrue(outcome.renewed)
            t.assertGreater(lease.remaining(), 2.0)
            t.assertEqual((await ac.status(lease.key)).expires_at, outcome.expires_at)
            t.assertGreaterEqual(outcome.expires_at, status.expires_at + 500)
            t.assertTrue(await lease.release())
    asyncio.run(with_asyncio())


@scenario("batch-renewal-refused-lease-lost-others-renewed")
def batch_refused_lease_lost(t: ServiceCase) -> None:
    c = t.client(t.a, t.b)
    calls: List[zkfence.Lease] = []
    leases = _acquire(t, c, 3, ttl=5, on_lost=calls.append)
    granted = [_expires_at(t, lease.key) for lease in leases]
    status, body = t.cluster.http("POST", leases[1].key, "/force-release", {"reason": "conformance"}, api_key=OPS_KEY)
    t.assertEqual((status, body.get("status")), (200, "FORCE_RELEASED"))
    outcomes = c.renew_all(leases)
    refused = outcomes[1]
    t.assertIs(refused.lease, leases[1])
    t.assertEqual((refused.renewed, refused.lost), (False, True))
    t.assertIsInstance(refused.error, zkfence.LeaseExpired)
    t.assertEqual(refused.error.code, "LOCK_EXPIRED")
    t.assertIs(leases[1].lost_reason, refused.error)
    t.assertTrue(leases[1].lost.is_set())
    with t.assertRaises(zkfence.LeaseLost):
        leases[1].check()
    await_true("the lost callback ran once, for the refused lease only", lambda: calls == [leases[1]])
    for i in (0, 2):
        t.assertEqual((outcomes[i].renewed, outcomes[i].error, outcomes[i].lost), (True, None, False))
        t.assertTrue(leases[i].valid)
        t.assertEqual(_expires_at(t, leases[i].key), outcomes[i].expires_at)
        t.assertGreater(outcomes[i].expires_at, granted[i])
    t.assertFalse(leases[1].release())
    t.assertTrue(leases[0].release())
    t.assertTrue(leases[2].release())
    t.assertEqual(calls, [leases[1]])


@scenario("batch-renewal-chunks-over-1000")
def batch_chunks(t: ServiceCase) -> None:
    c = t.client(t.a, t.b)
    leases = _acquire(t, c, 1001, ttl=60)
    granted = [_expires_at(t, leases[0].key), _expires_at(t, leases[-1].key)]
    try:
        with Captured() as log:
            outcomes = c.renew_all(leases)
        sends = _batch_sends(log)
        t.assertEqual(len(sends), 2, sends)
        t.assertTrue(sends[0].startswith("batch renewal of 1000 leases:"), sends)
        t.assertTrue(sends[1].startswith("batch renewal of 1 lease:"), sends)
        t.assertEqual(len(outcomes), 1001)
        t.assertTrue(all(o.lease is lease for o, lease in zip(outcomes, leases)), "outcomes in the order given")
        t.assertEqual([i for i, o in enumerate(outcomes) if not o.renewed], [])
        for outcome, first in zip((outcomes[0], outcomes[-1]), granted):
            t.assertEqual(_expires_at(t, outcome.lease.key), outcome.expires_at)
            t.assertGreater(outcome.expires_at, first)
    finally:
        held = list(t.pool.map(lambda lease: lease.release(), leases))
    t.assertEqual(held.count(True), 1001)


@scenario("batch-renewal-answer-lost-retried")
def batch_answer_lost(t: ServiceCase) -> None:
    proxy = LossyProxy(t.a.url)
    t.addCleanup(proxy.close)
    lost: List[zkfence.Lease] = []
    c = t.client(proxy.url, t.b)
    leases = [c.acquire("%s-%d" % (t.key, i), ttl=3, wait=0, auto_renew=False, on_lost=lost.append) for i in range(2)]
    granted = [_expires_at(t, lease.key) for lease in leases]
    proxy.drop("renew")
    outcomes = c.renew_all(leases)
    proxy.await_line("dropped renew")
    for lease, outcome, first in zip(leases, outcomes, granted):
        t.assertEqual((outcome.renewed, outcome.error), (True, None))
        t.assertTrue(lease.valid)
        t.assertGreater(_expires_at(t, lease.key), first)  # B's view (the cluster's status reads from B)
    t.assertEqual(lost, [])
    for lease in leases:
        t.assertTrue(lease.release())


KEYS = ["conf:scripted-1", "conf:scripted-2"]


def _granting(request: Request, n: int) -> Reply:
    return grant(token="lock-token-%d-0123456789abcdef" % n, fencing=40 + n, valid_for=30000)


@scenario("batch-renewal-deadline-from-send-time")
def batch_deadline_from_send(t: ScriptedCase) -> None:
    def renew(request: Request, n: int) -> Reply:
        results: List[Dict[str, Any]] = [
            {"lockKey": KEYS[0], "expiresAt": int(time.time() * 1000) + 3000, "validForMillis": 3000},
            {"lockKey": KEYS[1], "error": {"code": "NOT_LOCK_OWNER", "message": "not this owner's lease"}}]
        return Reply(200, {"results": results}, {}, 0.6)
    r = t.replica(lambda req, n: grant(token="lock-token-%d-0123456789abcdef" % n, valid_for=2000), renew=renew)
    calls: List[zkfence.Lease] = []
    c = zkfence.Client([r.url])
    leases = [c.acquire(k, ttl=30, wait=0, auto_renew=False, on_lost=calls.append) for k in KEYS]
    outcomes = c.renew_all(leases)
    sent = r.of("renew")
    t.assertEqual([req.path for req in sent], ["/v1/leases/renew"])
    t.assertEqual(sent[0].body, {"leases": [{"lockKey": lease.key, "lockToken": lease._secret.reveal(),
                                             "ownerId": c.owner_id, "ttlMillis": 30000} for lease in leases]})
    t.assertEqual(len({lease._secret.reveal() for lease in leases}), 2)
    t.assertTrue(outcomes[0].renewed)
    t.assertLessEqual(leases[0].remaining(), 2.4)
    t.assertGreater(leases[0].remaining(), 1.5)
    t.assertTrue(leases[0].valid)
    t.assertEqual((outcomes[1].renewed, outcomes[1].lost), (False, True))
    t.assertIsInstance(outcomes[1].error, zkfence.NotLockOwner)
    t.assertIsInstance(leases[1].lost_reason, zkfence.NotLockOwner)
    await_true("the lost callback ran once", lambda: calls == [leases[1]])
    leases[0].release()
    leases[1].release()


@scenario("batch-renewal-bad-input-refused")
def batch_bad_input(t: ScriptedCase) -> None:
    r = t.replica(_granting, release=released)
    c, other = zkfence.Client([r.url]), zkfence.Client([r.url])
    a, b, gone = [c.acquire("%s-%d" % (KEYS[0], i), ttl=30, wait=0, auto_renew=False) for i in range(3)]
    foreign = other.acquire(KEYS[1], ttl=30, wait=0, auto_renew=False)
    gone.release()
    cases: List[Any] = [
        ([], ValueError, "empty"),
        ("conf:k", TypeError, "leases must be a list"),
        ([a, "conf:k"], TypeError, r"leases\[1\] is not a zkfence.Lease"),
        ([a, foreign], ValueError, r"leases\[1\] .*another client"),
        ([a, gone], ValueError, r"leases\[1\] .*released"),
        ([a, b, a], ValueError, r"leases\[2\] is the same lease as leases\[0\]"),
    ]
    for leases, kind, message in cases:
        with t.subTest(leases=repr(leases)):
            with t.assertRaisesRegex(kind, message):
                c.renew_all(leases)

    async def with_asyncio() -> Optional[BaseException]:
        ac = zkfence.aio.Client([r.url])
        with t.assertRaisesRegex(ValueError, "empty"):
            await ac.renew_all([])
        with t.assertRaisesRegex(TypeError, r"leases\[0\] is not a zkfence.aio.Lease"):
            await ac.renew_all([a])  # a blocking client's lease
        return None
    asyncio.run(with_asyncio())
    t.assertEqual(r.of("renew"), [])
    for lease in (a, b, foreign):
        lease.release()


@scenario("batch-renewal-split-under-1-mib")
def batch_split_by_size(t: ScriptedCase) -> None:
    def renew(request: Request, n: int) -> Reply:
        return Reply(200, {"results": [{"lockKey": item["lockKey"], "expiresAt": int(time.time() * 1000) + 30000,
                                        "validForMillis": 30000} for item in request.body["leases"]]})
    r = t.replica(lambda req, n: grant(token=("t%04d" % n).ljust(256, "x"), valid_for=30000), renew=renew)
    c = zkfence.Client([r.url], owner_id="€" * 256)
    keys = [("conf:%04d-" % i).ljust(200, "k") for i in range(1000)]
    leases = [c.acquire(k, ttl=30, wait=0, auto_renew=False) for k in keys]
    outcomes = c.renew_all(leases)
    sent = r.of("renew")
    t.assertGreater(len(sent), 1)
    t.assertGreater(sum(req.size for req in sent), 1024 * 1024)
    for req in sent:
        t.assertLessEqual(req.size, 1024 * 1024)
        t.assertLessEqual(len(req.body["leases"]), 1000)
    t.assertEqual([item["lockKey"] for req in sent for item in req.body["leases"]], keys)
    t.assertEqual([o.renewed for o in outcomes], [True] * 1000)
    for lease in leases:
        lease.release()

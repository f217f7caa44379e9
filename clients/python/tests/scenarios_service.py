"""The conformance scenarios against a real service: ZooKeeper and replicas A and B (cluster.py)."""

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import time
import unittest
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, List, Optional

import support  # first: puts the package's source on the path
import zkfence
import zkfence.aio
from cluster import APP_KEY, OPS_KEY, OTHER_KEY, Cluster, free_port
from conformance import scenario
from databases import Postgres
from proxy import LossyProxy
from scripted import ScriptedReplica, problem
from support import PATIENCE, await_true


class ServiceCase(unittest.TestCase):
    """Base of the service scenarios: the shared cluster, a key and clients per test."""

    cluster: Cluster

    def setUp(self) -> None:
        self.cluster = Cluster.shared()
        self.a, self.b = self.cluster.a, self.cluster.b
        self.pool = ThreadPoolExecutor(4)
        self.addCleanup(self.pool.shutdown, wait=False)
        self.key = "conf:%s-%s" % (self.id().rsplit(".", 1)[-1][5:20], uuid.uuid4().hex[:8])

    def client(self, *replicas: Any, api_key: str = APP_KEY, owner_id: Optional[str] = None,
               timeout: float = 10.0) -> zkfence.Client:
        urls = [r if isinstance(r, str) else r.url for r in replicas]
        return zkfence.Client(urls, api_key=api_key, owner_id=owner_id, timeout=timeout)

    def closed_port(self) -> str:
        return "http://127.0.0.1:%d" % free_port()


class Captured(logging.Handler):
    """Every record of the 'zkfence' logger at DEBUG and above while installed."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: List[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def __enter__(self) -> "Captured":
        logger = logging.getLogger("zkfence")
        self._level = logger.level
        logger.setLevel(logging.DEBUG)
        logger.addHandler(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        logger = logging.getLogger("zkfence")
        logger.removeHandler(self)
        logger.setLevel(self._level)


@scenario("lock-and-release")
def lock_and_release(t: ServiceCase) -> None:
    c = t.client(t.a, t.b)
    lease = c.acquire(t.key, ttl=10, wait=5)
    t.assertTrue(lease.valid)
    t.assertGreater(lease.fencing_token, 0)
    status = c.status(t.key)
    t.assertEqual((status.locked, status.owner_id, status.fencing_token), (True, c.owner_id, lease.fencing_token))
    t.assertTrue(lease.release())
    t.assertFalse(c.status(t.key).locked)


@scenario("held-lock-refused-with-owner")
def held_lock_refused(t: ServiceCase) -> None:
    c1, c2 = t.client(t.a), t.client(t.b)
    with c1.lock(t.key, ttl=10, wait=0):
        with t.assertRaises(zkfence.LockHeld) as refused:
            c2.acquire(t.key, ttl=10, wait=0)
    t.assertEqual(refused.exception.owner, c1.owner_id)
    t.assertGreater(refused.exception.retry_after, 0)
    t.assertLessEqual(refused.exception.retry_after, 10)
    t.assertEqual((refused.exception.status, refused.exception.code), (409, "LOCK_ALREADY_HELD"))


@scenario("waiter-granted-on-release-with-higher-token")
def waiter_granted(t: ServiceCase) -> None:
    c1, c2 = t.client(t.a), t.client(t.b)
    first = c1.acquire(t.key, ttl=10, wait=0)
    waiting = t.pool.submit(c2.acquire, t.key, ttl=10, wait=20)
    await_true("owner 2 waits", lambda: c2.owner_id in t.cluster.waiters(t.key))
    first.release()
    second = waiting.result(PATIENCE)
    t.assertGreater(second.fencing_token, first.fencing_token)
    second.release()


@scenario("wait-runs-out-as-lock-held")
def wait_runs_out(t: ServiceCase) -> None:
    c1, c2 = t.client(t.a), t.client(t.b)
    with c1.lock(t.key, ttl=30, wait=0):
        start = time.monotonic()
        with t.assertRaises(zkfence.LockHeld):
            c2.acquire(t.key, ttl=10, wait=1)
        t.assertGreaterEqual(time.monotonic() - start, 1.0)
        t.assertEqual(t.cluster.waiters(t.key), [])


@scenario("same-request-id-same-grant")
def same_request_id(t: ServiceCase) -> None:
    owner, rid = "owner-" + uuid.uuid4().hex[:6], uuid.uuid4().hex
    first = t.client(t.a, owner_id=owner).acquire(t.key, ttl=10, wait=0, request_id=rid)
    again = t.client(t.b, owner_id=owner).acquire(t.key, ttl=10, wait=0, request_id=rid)
    t.assertEqual(again.fencing_token, first.fencing_token)
    status = t.cluster.status(t.key)
    t.assertEqual((status["ownerId"], status["waiters"]), (owner, []))
    first.release()
    again.release()


@scenario("renewal-keeps-lease-past-ttl")
def renewal_keeps_lease(t: ServiceCase) -> None:
    c = t.client(t.a, t.b)
    lost: List[zkfence.Lease] = []
    lease = c.acquire(t.key, ttl=1.5, wait=0, on_lost=lost.append)
    first = t.cluster.status(t.key)["expiresAt"]
    await_true("renewals push expiresAt 3 s on", lambda: t.cluster.status(t.key).get("expiresAt", 0) >= first + 3000)
    t.assertTrue(lease.valid)
    with t.assertRaises(zkfence.LockHeld):
        t.client(t.b).acquire(t.key, ttl=5, wait=0)
    t.assertTrue(lease.release())
    t.assertEqual(lost, [])
    t.assertFalse(lease.lost.is_set())


@scenario("paused-replica-lease-invalid-at-local-deadline")
def paused_replica_deadline(t: ServiceCase) -> None:
    c = t.client(t.a)
    calls: List[zkfence.Lease] = []
    lease = c.acquire(t.key, ttl=3, wait=0, on_lost=calls.append)
    t.a.pause()
    try:
        t.assertTrue(lease.valid)
        deadline = time.monotonic() + lease.remaining()  # fixed now: no renewal can get through
        t.assertTrue(lease.lost.wait(deadline - time.monotonic() + PATIENCE), "the lost signal came")
        t.assertGreaterEqual(time.monotonic(), deadline - 0.01)
        t.assertFalse(lease.valid)
        with t.assertRaises(zkfence.LeaseLost):
            lease.check()
        await_true("the lost callback ran once", lambda: calls == [lease])
        t.assertNotIsInstance(lease.lost_reason, (zkfence.LeaseExpired, zkfence.NotLockOwner,
                                                  zkfence.RequestFinished))
    finally:
        t.a.resume()
    lease.release()


@scenario("paused-replica-renewal-fails-over")
def paused_replica_failover(t: ServiceCase) -> None:
    c = t.client(t.a, t.b)
    lease = c.acquire(t.key, ttl=2, wait=0)
    first = t.cluster.status(t.key)["expiresAt"]
    t.a.pause()
    try:
        await_true("renewals through B push expiresAt 4 s on",
                   lambda: t.cluster.status(t.key).get("expiresAt", 0) >= first + 4000)
        t.assertTrue(lease.valid)
        t.assertFalse(lease.lost.is_set())
    finally:
        t.a.resume()
    t.assertTrue(lease.release())


@scenario("shutdown-503-fails-over-same-request-id")
def shutdown_fails_over(t: ServiceCase) -> None:
    holder, waiter = t.client(t.b), t.client(t.a, t.b)
    held = holder.acquire(t.key, ttl=30, wait=0)
    a_url = t.a.url
    with Captured() as log:
        waiting = t.pool.submit(waiter.acquire, t.key, ttl=10, wait=30)
        await_true("owner 2 waits (on A)", lambda: waiter.owner_id in t.cluster.waiters(t.key))
        t.a.terminate()
        await_true("owner 2 waits again (on B)", lambda: waiter.owner_id in t.cluster.waiters(t.key))
        held.release()
        granted = waiting.result(PATIENCE)
    t.assertGreater(granted.fencing_token, held.fencing_token)
    refused = [r for r in log.records if getattr(r, "zkfence_replica", None) == a_url
               and "SHUTTING_DOWN" in r.getMessage()]
    t.assertTrue(refused, "A's 503 SHUTTING_DOWN is in the client's log: %s" % [r.getMessage() for r in log.records])
    t.assertEqual(refused[0].zkfence_request_id, granted.request_id)
    granted.release()


@scenario("unavailable-503-fails-over-same-request-id")
def unavailable_fails_over(t: ServiceCase) -> None:
    down = ScriptedReplica(lambda request, n: problem(503, "UNAVAILABLE", "ZooKeeper did not answer"))
    t.addCleanup(down.close)
    c = t.client(down.url, t.b)
    lease = c.acquire(t.key, ttl=10, wait=0)
    t.assertEqual(t.cluster.status(t.key)["ownerId"], c.owner_id)
    acquires = down.of("acquire")
    t.assertTrue(acquires)
    t.assertEqual(acquires[0].body["requestId"], lease.request_id)
    lease.release()


@scenario("unreachable-replica-fails-over")
def unreachable_fails_over(t: ServiceCase) -> None:
    c = t.client(t.closed_port(), t.a)
    lease = c.acquire(t.key, ttl=10, wait=0)
    lease.renew()
    t.assertTrue(lease.release())


@scenario("stale-writer-rejected-by-fence")
def stale_writer(t: ServiceCase) -> None:
    db = Postgres()
    fence = zkfence.SqlFence()
    conn = db.connect()
    t.addCleanup(conn.close)
    fence.create_if_missing(conn)
    table = db.new_table()

    def write(token: int, value: str) -> None:
        fence.in_transaction(conn, t.key, token, lambda c: db.upsert(c, table, t.key, value))

    p, q = t.client(t.a), t.client(t.b)
    held = p.acquire(t.key, ttl=2, wait=0)
    write(held.fencing_token, "P-1")
    t.a.pause()
    try:
        newer = q.acquire(t.key, ttl=10, wait=20)
        t.assertGreater(newer.fencing_token, held.fencing_token)
        write(newer.fencing_token, "Q-1")
        # Q was granted after P's lease ended on the service, which is no earlier than P's local deadline.
        t.assertFalse(held.valid)
        with t.assertRaises(zkfence.StaleToken) as stale:
            write(held.fencing_token, "P-2")  # P woke up and wrote without checking its lease
        t.assertEqual((stale.exception.resource, stale.exception.presented_token, stale.exception.stored_token),
                      (t.key, held.fencing_token, newer.fencing_token))
        t.assertEqual(db.value(table, t.key), "Q-1")
    finally:
        t.a.resume()
    newer.release()


@scenario("force-released-lease-lost-on-renewal")
def force_released(t: ServiceCase) -> None:
    c = t.client(t.a, t.b)
    calls: List[zkfence.Lease] = []
    lease = c.acquire(t.key, ttl=3, wait=0, on_lost=calls.append)
    status, body = t.cluster.http("POST", t.key, "/force-release", {"reason": "conformance"}, api_key=OPS_KEY)
    t.assertEqual((status, body.get("status")), (200, "FORCE_RELEASED"))
    t.assertTrue(lease.lost.wait(PATIENCE))
    t.assertIsInstance(lease.lost_reason, zkfence.LeaseExpired)
    await_true("the lost callback ran once", lambda: calls == [lease])
    t.assertFalse(lease.release())


@scenario("unauthorized-not-retried")
def unauthorized(t: ServiceCase) -> None:
    with Captured() as log:
        with t.assertRaises(zkfence.Unauthorized) as refused:
            t.client(t.a, t.b, api_key="not-a-key-0123456789").acquire(t.key, ttl=5, wait=0)
    t.assertEqual(refused.exception.status, 401)
    t.assertEqual([r for r in log.records if r.levelno >= logging.INFO], [], "no retry was logged")
    t.assertEqual(len([r for r in log.records if "sending" in r.getMessage()]), 1, "one request")


@scenario("namespace-forbidden")
def namespace_forbidden(t: ServiceCase) -> None:
    with t.assertRaises(zkfence.Forbidden) as refused:
        t.client(t.a, api_key=OTHER_KEY).acquire(t.key, ttl=5, wait=0)
    t.assertEqual((refused.exception.status, refused.exception.code), (403, "NAMESPACE_FORBIDDEN"))


@scenario("bad-request-names-field")
def bad_request(t: ServiceCase) -> None:
    with t.assertRaises(zkfence.BadRequest) as refused:
        t.client(t.a).acquire(t.key, ttl=7200, wait=0)
    t.assertIn("ttlMillis", str(refused.exception))


@scenario("lock-token-never-shown")
def lock_token_never_shown(t: ServiceCase) -> None:
    with Captured() as log:
        c = t.client(t.closed_port(), t.a)
        lease = c.acquire(t.key, ttl=5, wait=0)
        lease.renew()
        lease.release()
        with t.assertRaises(zkfence.LeaseLost) as lost:
            lease.check()
    token = lease._secret.reveal()
    t.assertTrue(token and log.records)
    shown = [repr(lease), str(lease), repr(c), str(c), str(lost.exception), repr(lost.exception)]
    shown += [r.getMessage() for r in log.records] + [repr(vars(r)) for r in log.records]
    for text in shown:
        t.assertNotIn(token, text)
        t.assertNotIn(APP_KEY, text)


@scenario("request-finished-never-a-grant")
def request_finished(t: ServiceCase) -> None:
    c = t.client(t.a, t.b)
    rid = uuid.uuid4().hex
    c.acquire(t.key, ttl=10, wait=0, request_id=rid).release()
    with t.assertRaises(zkfence.RequestFinished) as finished:
        c.acquire(t.key, ttl=10, wait=0, request_id=rid)
    t.assertEqual(finished.exception.outcome, "RELEASED")
    t.assertFalse(c.status(t.key).locked)


@scenario("forged-token-not-lock-owner")
def forged_token(t: ServiceCase) -> None:
    from zkfence._http import Secret
    lease = t.client(t.a, t.b).acquire(t.key, ttl=10, wait=0)
    real = lease._secret
    lease._secret = Secret("forged-" + uuid.uuid4().hex)  # the test hook: a token the service never issued
    with t.assertRaises(zkfence.LeaseLost) as lost:
        lease.renew()
    t.assertIsInstance(lost.exception.reason, zkfence.NotLockOwner)
    lease._secret = real
    lease.release()


@scenario("queue-grant-renewed-within-shorter-validity")
def queue_grant_validity(t: ServiceCase) -> None:
    c1, c2 = t.client(t.a), t.client(t.b)
    first = c1.acquire(t.key, ttl=10, wait=0)
    # A TTL between what an unconfirmed grant may be answered valid for (2/3 of the 15 s session) and
    # twice that: granted without a write and answered valid for less than its TTL.
    waiting = t.pool.submit(c2.acquire, t.key, ttl=15, wait=20)
    await_true("owner 2 waits", lambda: c2.owner_id in t.cluster.waiters(t.key))
    first.release()
    lease = waiting.result(PATIENCE)
    first_validity_ends = time.monotonic() + lease.remaining()
    t.assertLess(lease.remaining(), 14)
    await_true("past the first validity", lambda: time.monotonic() > first_validity_ends + 0.5, timeout=90)
    t.assertTrue(lease.valid)
    lease.release()


def _force_release(t: ServiceCase) -> None:
    status, body = t.cluster.http("POST", t.key, "/force-release", {"reason": "conformance"}, api_key=OPS_KEY)
    t.assertEqual((status, body.get("status")), (200, "FORCE_RELEASED"))


async def _await_async(what: str, condition: Callable[[], Any], timeout: float = PATIENCE) -> Any:
    loop = asyncio.get_running_loop()
    end = time.monotonic() + timeout
    while True:
        value = await loop.run_in_executor(None, condition)
        if value:
            return value
        if time.monotonic() >= end:
            raise AssertionError("not true within %.0f s: %s" % (timeout, what))
        await asyncio.sleep(0.05)


@scenario("cancel-waiting-acquire")
def cancel_waiting(t: ServiceCase) -> None:
    c1 = t.client(t.a)
    with c1.lock(t.key, ttl=30, wait=0) as held:
        # The blocking client: a Cancellation, cancelled from another thread.
        c2 = t.client(t.b)
        cancel = zkfence.Cancellation()
        waiting = t.pool.submit(c2.acquire, t.key, ttl=10, wait=30, cancel=cancel)
        await_true("owner 2 waits", lambda: c2.owner_id in t.cluster.waiters(t.key))
        start = time.monotonic()
        cancel.cancel("the caller gave up")
        with t.assertRaises(zkfence.Cancelled) as cancelled:
            waiting.result(PATIENCE)
        t.assertLess(time.monotonic() - start, 5)
        t.assertIn("the caller gave up", str(cancelled.exception))
        await_true("the queue entry is gone", lambda: t.cluster.waiters(t.key) == [])

        # asyncio: the task awaiting the acquire is cancelled.
        async def cancel_task() -> None:
            c3 = zkfence.aio.Client([t.b.url], api_key=APP_KEY)
            task = asyncio.ensure_future(c3.acquire(t.key, ttl=10, wait=30))
            await _await_async("owner 3 waits", lambda: c3.owner_id in t.cluster.waiters(t.key))
            began = time.monotonic()
            task.cancel()
            with t.assertRaises(asyncio.CancelledError):
                await task
            t.assertLess(time.monotonic() - began, 5)
        asyncio.run(cancel_task())
        await_true("the queue entry is gone", lambda: t.cluster.waiters(t.key) == [])
        t.assertTrue(held.valid)
        t.assertEqual(t.cluster.status(t.key)["ownerId"], c1.owner_id)


@scenario("paused-client-check-fails-and-write-rejected")
def paused_client(t: ServiceCase) -> None:
    db = Postgres()
    conn = db.connect()
    t.addCleanup(conn.close)
    fence = zkfence.SqlFence()
    fence.create_if_missing(conn)
    table = db.new_table()
    env = dict(os.environ, ZKFENCE_API_KEY=APP_KEY,
               PYTHONPATH=str(support.PACKAGE_ROOT / "src") + os.pathsep + str(support.HERE))
    child = subprocess.Popen([sys.executable, str(support.HERE / "paused_client.py"), t.key, table,
                              str(db.server.port), t.a.url, t.b.url], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             env=env, text=True)
    t.addCleanup(lambda: child.poll() is None and (child.kill(), child.wait()))
    held = json.loads(child.stdout.readline())["held"]
    os.kill(child.pid, signal.SIGSTOP)
    try:
        newer = t.client(t.b).acquire(t.key, ttl=10, wait=20)  # granted once P's lease expired on the service
        t.assertGreater(newer.fencing_token, held)
        fence.in_transaction(conn, t.key, newer.fencing_token, lambda c: db.upsert(c, table, t.key, "Q-1"))
    finally:
        os.kill(child.pid, signal.SIGCONT)
    out, _ = child.communicate("go\n", timeout=PATIENCE)
    result = json.loads(out.strip().splitlines()[-1])
    t.assertTrue(result["check"].startswith("LeaseLost"), result)
    t.assertEqual((result["write"], result.get("stored")), ("StaleToken", newer.fencing_token), result)
    t.assertEqual(db.value(table, t.key), "Q-1")
    newer.release()


@scenario("replica-killed-mid-wait")
def replica_killed_mid_wait(t: ServiceCase) -> None:
    holder, waiter = t.client(t.b), t.client(t.a, t.b)
    held = holder.acquire(t.key, ttl=30, wait=0)
    a_url = t.a.url
    with Captured() as log:
        waiting = t.pool.submit(waiter.acquire, t.key, ttl=10, wait=40)
        await_true("owner 2 waits (on A)", lambda: waiter.owner_id in t.cluster.waiters(t.key))
        t.a.kill()
        await_true("owner 2's attempt on A failed and went to B",
                   lambda: any(getattr(r, "zkfence_replica", None) == a_url and "failed" in r.getMessage()
                               for r in log.records))
        held.release()
        granted = waiting.result(PATIENCE * 2)
    t.assertGreater(granted.fencing_token, held.fencing_token)
    failed = [r for r in log.records if getattr(r, "zkfence_replica", None) == a_url and "failed" in r.getMessage()]
    t.assertEqual(failed[0].zkfence_request_id, granted.request_id)
    granted.release()


@scenario("replica-killed-mid-renew")
def replica_killed_mid_renew(t: ServiceCase) -> None:
    proxy = LossyProxy(t.a.url)
    t.addCleanup(proxy.close)
    lost: List[zkfence.Lease] = []
    lease = t.client(proxy.url, t.b).acquire(t.key, ttl=3, wait=0, on_lost=lost.append)
    first = t.cluster.status(t.key)["expiresAt"]
    proxy.await_line("forwarded renew")
    t.a.kill()
    await_true("renewals through B push expiresAt 4 s on",
               lambda: t.cluster.status(t.key).get("expiresAt", 0) >= first + 4000)
    t.assertTrue(lease.valid)
    t.assertEqual(lost, [])
    t.assertTrue(lease.release())


@scenario("grant-answer-lost-mid-wait")
def grant_answer_lost(t: ServiceCase) -> None:
    proxy = LossyProxy(t.a.url)
    t.addCleanup(proxy.close)
    holder, waiter = t.client(t.b), t.client(proxy.url, t.b)
    held = holder.acquire(t.key, ttl=30, wait=0)
    proxy.drop("acquire")
    waiting = t.pool.submit(waiter.acquire, t.key, ttl=10, wait=20)
    await_true("owner 2 waits (on A, through the proxy)", lambda: waiter.owner_id in t.cluster.waiters(t.key))
    held.release()
    granted = waiting.result(PATIENCE)
    proxy.await_line("dropped acquire")
    t.assertGreater(granted.fencing_token, held.fencing_token)
    status = t.cluster.status(t.key)
    t.assertEqual((status["ownerId"], status["fencingToken"], status["waiters"]),
                  (waiter.owner_id, granted.fencing_token, []))
    t.assertTrue(granted.release())


@scenario("renewal-answer-lost")
def renewal_answer_lost(t: ServiceCase) -> None:
    proxy = LossyProxy(t.a.url)
    t.addCleanup(proxy.close)
    lost: List[zkfence.Lease] = []
    lease = t.client(proxy.url, t.b).acquire(t.key, ttl=3, wait=0, on_lost=lost.append)
    first = t.cluster.status(t.key)["expiresAt"]
    proxy.drop("renew")
    proxy.await_line("dropped renew")
    await_true("renewals push expiresAt 4 s on", lambda: t.cluster.status(t.key).get("expiresAt", 0) >= first + 4000)
    t.assertTrue(lease.valid)
    t.assertEqual(lost, [])
    t.assertTrue(lease.release())


@scenario("block-end-after-loss-raises")
def block_end_after_loss(t: ServiceCase) -> None:
    c = t.client(t.a, t.b)
    with t.assertRaises(zkfence.LeaseLost) as raised:
        with c.lock(t.key, ttl=3, wait=0) as lease:
            _force_release(t)
            t.assertTrue(lease.lost.wait(PATIENCE))
    t.assertIsInstance(raised.exception.reason, zkfence.LeaseExpired)
    t.assertEqual(lease.state, "released")
    with c.lock(t.key, ttl=3, wait=0, raise_if_lost=False) as kept:
        _force_release(t)
        t.assertTrue(kept.lost.wait(PATIENCE))
    t.assertEqual(kept.state, "released")

    async def asyncio_block() -> None:
        ac = zkfence.aio.Client([t.a.url, t.b.url], api_key=APP_KEY)
        with t.assertRaises(zkfence.LeaseLost):
            async with ac.lock(t.key, ttl=3, wait=0) as alease:
                await asyncio.get_running_loop().run_in_executor(None, _force_release, t)
                await asyncio.wait_for(alease.lost.wait(), PATIENCE)
        async with ac.lock(t.key, ttl=3, wait=0, raise_if_lost=False) as akept:
            await asyncio.get_running_loop().run_in_executor(None, _force_release, t)
            await asyncio.wait_for(akept.lost.wait(), PATIENCE)
    asyncio.run(asyncio_block())


@scenario("event-loop-blocked-past-deadline")
def event_loop_blocked(t: ServiceCase) -> None:
    async def blocked() -> None:
        lease = await zkfence.aio.Client([t.a.url, t.b.url], api_key=APP_KEY).acquire(t.key, ttl=2, wait=0)
        t.assertTrue(lease.valid)
        time.sleep(3)  # the loop is blocked: no renewal task can run
        t.assertFalse(lease.valid)
        with t.assertRaises(zkfence.LeaseLost):
            lease.check()
        t.assertFalse(lease.lost.is_set(), "no lost signal could be delivered while the loop was blocked")
        await lease.release()
    asyncio.run(blocked())
    other = t.client(t.b).acquire(t.key, ttl=5, wait=10)
    other.release()

"""zkfence for asyncio: the same client, leases and errors, its calls coroutines.

    import zkfence.aio
    client = zkfence.aio.Client(["http://zkfence-a:8080", "http://zkfence-b:8080"], api_key="...")
    async with client.lock("inventory-service:sku:123", ttl=30, wait=10) as lease:
        lease.check()                       # still ours? (local, no round trip)
        await write(..., lease.fencing_token)

HTTP/1.1 over asyncio streams (standard library only), one connection per request. Cancelling
the task that awaits a call cancels it for real: the connection of the request in flight is
closed, so a waiting acquire leaves the service's queue at once (the replica sees its caller go),
and ``asyncio.CancelledError`` goes on up as asyncio code expects. Renewal runs as a task on the
running loop. Failover, the local deadline (``CLOCK_BOOTTIME``), the drift margin, idempotent
retries and every error are the blocking client's (``zkfence.Client``): see docs/clients.md.
"""

import asyncio
import inspect
import json
import logging
import ssl
import urllib.parse
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, List, Optional, Set, Union

from ._batch import PATH as BATCH_PATH, BatchRenewal, RenewOutcome
from ._client import Acquisition, BaseClient, LockStatus, _lock_key, lock_status
from ._clock import now
from ._errors import ServiceError
from ._http import Answer, BadAnswer, NoAnswer, Replica, Secret, Unreached, parse_answer
from ._lease import LeaseCore
from ._replicas import Body, Outcome, Replicas

__all__ = ["Client", "Lease"]

log = logging.getLogger("zkfence")

#: Leases given back in the background (a grant that crossed its acquire's cancellation): kept
#: referenced until done, as asyncio asks of tasks nobody awaits.
_BACKGROUND: Set["asyncio.Task[Any]"] = set()


async def _exchange(replica: Replica, method: str, path: str, body: Optional[Dict[str, Any]],
                    headers: Dict[str, str], timeout: float, ssl_context: Optional[ssl.SSLContext]) -> Answer:
    """One request on a new connection, its answer read within ``timeout`` seconds. Cancelled, or
    out of time, it closes the connection (the replica then drops a waiting acquire's entry)."""
    connected = False

    async def run() -> Answer:
        nonlocal connected
        try:
            if replica.https:
                context = ssl_context or ssl.create_default_context()
                reader, writer = await asyncio.open_connection(replica.host, replica.port, ssl=context,
                                                               server_hostname=replica.host)
            else:
                reader, writer = await asyncio.open_connection(replica.host, replica.port)
        except (OSError, ssl.SSLError) as e:
            raise Unreached("%s: %s" % (replica.url, e)) from e
        connected = True
        try:
            data = b"" if body is None else _json(body)
            lines = ["%s %s HTTP/1.1" % (method, replica.prefix + path), "Host: %s:%d" % (replica.host, replica.port),
                     "Connection: close", "Content-Length: %d" % len(data)]
            lines += ["%s: %s" % kv for kv in headers.items()]
            if body is not None:
                lines.append("Content-Type: application/json")
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data)
            await writer.drain()
            status, fields = await _head(reader)
            if "chunked" in fields.get("transfer-encoding", "").lower():
                raw = await _chunked(reader)
            elif "content-length" in fields:
                raw = await reader.readexactly(int(fields["content-length"]))
            else:
                raw = await reader.read()
        except (OSError, ssl.SSLError, asyncio.IncompleteReadError, ValueError) as e:
            raise NoAnswer("%s: %s" % (replica.url, e or type(e).__name__)) from e
        finally:
            writer.close()  # also when cancelled: the FIN tells the replica its caller left
        return parse_answer(replica, status, raw, fields.get("retry-after"))

    try:
        return await asyncio.wait_for(run(), max(timeout, 0.001))
    except asyncio.TimeoutError:
        if not connected:
            raise Unreached("%s: no connection within %.3f s" % (replica.url, timeout)) from None
        raise NoAnswer("%s: no answer within %.3f s" % (replica.url, timeout)) from None


def _json(body: Dict[str, Any]) -> bytes:
    return json.dumps(body).encode("utf-8")


async def _head(reader: asyncio.StreamReader):
    status_line = (await reader.readuntil(b"\r\n")).decode("latin-1")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
        raise ValueError("not an HTTP/1.x answer: %r" % status_line[:40])
    fields: Dict[str, str] = {}
    while True:
        line = (await reader.readuntil(b"\r\n")).decode("latin-1").rstrip("\r\n")
        if not line:
            return int(parts[1]), fields
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()


async def _chunked(reader: asyncio.StreamReader) -> bytes:
    out = bytearray()
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                pass
            return bytes(out)
        out += await reader.readexactly(size)
        await reader.readexactly(2)


async def _call(replicas: Replicas, method: str, path: str, body: Body, *, until: float, what: str,
                key: Optional[str] = None, request_id: Optional[str] = None,
                attempt_timeout: Optional[Callable[[float, float], float]] = None,
                secret: Optional[Secret] = None) -> Outcome:
    """``Replicas.call`` for asyncio: the same attempts, back-off and bound."""
    tries = replicas.attempts(until=until, what=what, key=key, request_id=request_id, secret=secret)
    while True:
        state, start = tries.next()
        at = now()
        if start > at:
            await asyncio.sleep(start - at)
            at = now()
        timeout = until - at if attempt_timeout is None else attempt_timeout(at, until)
        payload = body(at) if callable(body) else body
        sent = tries.sending(state)
        try:
            answer = await _exchange(state.replica, method, path, payload, replicas.headers, timeout, replicas.ssl)
        except (Unreached, NoAnswer, BadAnswer) as e:
            tries.failed(state, e, sent)
            continue
        outcome = tries.answered(state, answer, sent)
        if outcome is not None:
            return outcome


OnLost = Callable[["Lease"], Union[None, Awaitable[None]]]


class Client(BaseClient):
    """The asyncio client: ``zkfence.aio.Client(["http://a:8080", "http://b:8080"], api_key=...)``.
    Same arguments and behaviour as ``zkfence.Client``; every call is a coroutine, and cancelling
    the task that awaits it cancels it (a waiting acquire leaves the queue)."""

    @asynccontextmanager
    async def lock(self, key: str, *, ttl: float = 30.0, wait: float = 10.0, request_id: Optional[str] = None,
                   auto_renew: bool = True, on_lost: Optional[OnLost] = None,
                   raise_if_lost: bool = True) -> AsyncIterator["Lease"]:
        """``async with client.lock(key, ttl=30, wait=10) as lease:`` acquires, yields the lease
        and releases it when the block ends; a lease lost during the block makes its end raise
        ``LeaseLost`` (after the release) unless ``raise_if_lost`` is False."""
        lease = await self.acquire(key, ttl=ttl, wait=wait, request_id=request_id, auto_renew=auto_renew,
                                   on_lost=on_lost, raise_if_lost=raise_if_lost)
        async with lease:
            yield lease

    async def acquire(self, key: str, *, ttl: float = 30.0, wait: float = 10.0, request_id: Optional[str] = None,
                      auto_renew: bool = True, on_lost: Optional[OnLost] = None,
                      raise_if_lost: bool = True) -> "Lease":
        """As ``zkfence.Client.acquire``. Cancel the awaiting task to give up the wait."""
        a = Acquisition(self, key, ttl=ttl, wait=wait, request_id=request_id)
        while True:
            outcome = await _call(self._replicas, "POST", a.path + "/acquire", a.body, until=a.until, what=a.what,
                                  key=a.key, request_id=a.rid)
            grant = a.answered(outcome)
            if grant is not None:
                renewal = None
                if a.must_renew_first(grant, outcome):
                    try:
                        renewal = await _call(self._replicas, "POST", a.path + "/renew", a.renew_body(grant),
                                              until=a.until, what="renew of '%s'" % a.key, key=a.key,
                                              secret=grant[0])
                    except asyncio.CancelledError:
                        self._give_back(a, grant)
                        raise
                times = a.lease_times(grant, outcome, renewal)
                if times is not None:
                    return Lease(replicas=self._replicas, on_lost=on_lost, auto_renew=auto_renew,
                                 raise_if_lost=raise_if_lost, **a.lease_args(grant, times))
            elif a.pause is not None:
                await asyncio.sleep(a.pause)
                continue
            a.next_request()

    def _give_back(self, a: Acquisition, grant: Any) -> None:
        """Releases, in the background, a grant whose acquire was cancelled after it came."""
        body = {"ownerId": self.owner_id, "lockToken": grant[0].reveal()}
        task = asyncio.get_running_loop().create_task(_call(
            self._replicas, "POST", a.path + "/release", body, until=now() + self._timeout,
            what="release of '%s' (its acquire was cancelled)" % a.key, key=a.key, secret=grant[0]))
        _BACKGROUND.add(task)
        task.add_done_callback(_BACKGROUND.discard)

    async def renew_all(self, leases: List["Lease"]) -> List[RenewOutcome]:
        """As ``zkfence.Client.renew_all``, for this client's ``zkfence.aio.Lease`` objects: one
        batch renewal request per 1,000 leases, one ``RenewOutcome`` per lease in the order given."""
        batch = BatchRenewal(self, leases, Lease)
        for chunk in batch.chunks:
            try:
                outcome = await _call(self._replicas, "POST", BATCH_PATH, chunk.body, until=chunk.until,
                                      what=chunk.what, attempt_timeout=chunk.attempt_timeout)
            except ServiceError as e:
                batch.record(chunk.failed(e))
                continue
            batch.record(chunk.answered(outcome))
        return batch.outcomes()

    async def status(self, key: str) -> LockStatus:
        """The lock's holder and waiters now, as the service sees them (a linearizable read)."""
        key = _lock_key(key)
        path = "/v1/locks/" + urllib.parse.quote(key, safe="")
        return lock_status(key, await _call(self._replicas, "GET", path, None, until=now() + self._timeout,
                                            what="status of '%s'" % key, key=key))


class Lease(LeaseCore):
    """A lease of ``zkfence.aio.Client``: ``valid``, ``check()``, ``remaining()``,
    ``fencing_token`` as in ``zkfence.Lease``; ``lost`` is an ``asyncio.Event``; ``on_lost`` may
    be a coroutine function; ``await renew()``, ``await release()``, ``async with lease:``.
    Its renewal is a task on the loop that acquired it: a loop blocked past the local deadline
    cannot renew, and ``check()`` then raises ``LeaseLost``."""

    def __init__(self, *, replicas: Replicas, on_lost: Optional[OnLost], **core: Any):
        super().__init__(**core)
        self.lost = asyncio.Event()
        self._replicas = replicas
        self._on_lost = on_lost
        self._callbacks: Set["asyncio.Task[Any]"] = set()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="zkfence-lease " + self.key)

    async def renew(self) -> None:
        """Renews now. Raises ``LeaseLost`` if the lease is or becomes lost, ``Unavailable`` if
        no replica answered before the local deadline."""
        self.check()
        with self._mutex:
            deadline = self._deadline
        refusal = self._renewal(await self._send_renew(deadline))
        if refusal is not None:
            self.check()
            raise refusal

    async def release(self) -> bool:
        """Gives the lock back (the renewal task stops first); whether the service still held it."""
        known = self._start_release()
        self._task.cancel()
        if known is not None:
            return known
        return self._finish_release(await _call(
            self._replicas, "POST", self._path + "/release", self._release_body(), until=now() + self._timeout,
            what="release of '%s'" % self.key, key=self.key, secret=self._secret))

    async def __aenter__(self) -> "Lease":
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        if exc is None:
            lost = self._lost_in_block()
            await self.release()
            if lost is not None:
                raise lost
            return
        try:
            await self.release()
        except ServiceError as e:
            log.warning("release of '%s' after a failure in the locked block failed too: %s", self.key, e)

    async def _run(self) -> None:
        while True:
            due = self._next_due()
            if due is None or self._deadline_passed():
                return
            wait = due - now()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            with self._mutex:
                deadline = self._deadline
            try:
                outcome = await self._send_renew(deadline)
            except ServiceError as e:  # Unavailable (no replica answered in time) or a bad answer
                self._retry_later(e)
                continue
            self._renewal(outcome)

    def _send_renew(self, deadline: float) -> Awaitable[Outcome]:
        return _call(self._replicas, "POST", self._path + "/renew", self._renew_body(), until=deadline,
                     what="renew of '%s'" % self.key, key=self.key, secret=self._secret,
                     attempt_timeout=lambda at, until: max(0.001, (until - at) / 2))

    def _lose(self, reason: Optional[BaseException]) -> bool:
        if not super()._lose(reason):
            return False
        self.lost.set()
        if self._on_lost is not None:
            try:
                result = self._on_lost(self)
                if inspect.isawaitable(result):
                    task = asyncio.ensure_future(result)
                    self._callbacks.add(task)
                    task.add_done_callback(self._callback_done)
            except Exception:
                log.exception("on_lost callback for lock '%s' raised", self.key)
        return True

    def _callback_done(self, task: "asyncio.Task[Any]") -> None:
        self._callbacks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("on_lost callback for lock '%s' raised", self.key, exc_info=task.exception())

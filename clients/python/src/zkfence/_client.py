"""The client: acquires leases from the lock service's replicas."""

import logging
import os
import socket
import ssl
import urllib.parse
import uuid
import threading
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple
from contextlib import contextmanager

from ._batch import PATH as BATCH_PATH, BatchRenewal, Chunk, RenewOutcome
from ._cancel import Cancellation
from ._clock import now, usable
from ._errors import Cancelled, LockHeld, RequestFinished, ServerError, ServiceError, TooManyWaiters, from_problem
from ._http import Secret
from ._lease import Lease, validity
from ._replicas import Outcome, Replicas
from ._version import __version__

log = logging.getLogger("zkfence")

#: The service's limit on lock keys, in UTF-8 bytes.
MAX_KEY_BYTES = 256


class LockStatus(NamedTuple):
    """What the service says about a lock now (``GET /v1/locks/{key}``)."""

    key: str
    locked: bool
    owner_id: Optional[str]
    fencing_token: Optional[int]
    expires_at: Optional[int]  # epoch ms on the replica's clock
    waiters: List[str]  # their ownerIds, in queue order


def _seconds(name: str, value: Any, *, positive: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("%s must be a number of seconds, got %r" % (name, value))
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError("%s must be a finite number of seconds, got %r" % (name, value))
    if positive and value <= 0 or value < 0:
        raise ValueError("%s must be %s, got %r" % (name, "above 0" if positive else "0 or more", value))
    return float(value)


def _lock_key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError("key must be a string like 'inventory-service:sku:123', got %r" % (key,))
    if not key.strip():
        raise ValueError("key must not be blank")
    try:
        size = len(key.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValueError("key %r is not well-formed Unicode (an unpaired surrogate)" % key) from None
    if size > MAX_KEY_BYTES:
        raise ValueError("key is %d UTF-8 bytes long; the service's limit is %d" % (size, MAX_KEY_BYTES))
    return key


class BaseClient:
    """What the blocking and the asyncio client share: the replicas, the owner, the time bound.

    A client of zkfence-server: ``Client(["http://a:8080", "http://b:8080"], api_key=...)``.

    Calls go to the replica that answered last (at first the first one); a connection error, a
    timeout or a 503 ``UNAVAILABLE`` / ``SHUTTING_DOWN`` sends the same request (same requestId)
    to the next replica, with jittered exponential back-off once every replica has failed, until
    the call's time bound: an acquire's ``wait`` plus ``timeout``, ``timeout`` for the other calls,
    a renewal's local deadline. Thread-safe; one client is one owner (``owner_id``).

    Args:
        replicas: the replicas' base URLs (or one load balancer's).
        api_key: the service's bearer API key (None for a service run with ``--no-auth``).
        owner_id: who holds the locks, as the service shows it (default: host-pid-random).
        timeout: seconds a call may take beyond its own wait, retries included (default 10).
        ssl_context: for ``https://`` replicas with a private CA.
    """

    def __init__(self, replicas: List[str], *, api_key: Optional[str] = None, owner_id: Optional[str] = None,
                 timeout: float = 10.0, ssl_context: Optional[ssl.SSLContext] = None):
        if api_key is not None and (not isinstance(api_key, str) or not api_key):
            raise ValueError("api_key must be a non-empty string or None")
        if owner_id is None:
            owner_id = "%s-%d-%s" % (socket.gethostname(), os.getpid(), uuid.uuid4().hex[:6])
        elif not isinstance(owner_id, str) or not owner_id.strip():
            raise ValueError("owner_id must be a non-blank string, got %r" % (owner_id,))
        self._timeout = _seconds("timeout", timeout, positive=True)
        self.owner_id = owner_id
        self._api_key = Secret(api_key) if api_key else None
        headers = {"Accept": "application/json", "User-Agent": "zkfence-python/" + __version__}
        if api_key:
            headers["Authorization"] = "Bearer " + api_key
        self._replicas = Replicas(replicas, headers, ssl_context)

    @property
    def replicas(self) -> List[str]:
        return self._replicas.urls

    def __repr__(self) -> str:
        return "<%s.%s owner_id=%r replicas=%r>" % (type(self).__module__.replace("._client", ""),
                                                      type(self).__name__, self.owner_id, self.replicas)


class Client(BaseClient):
    """A client of zkfence-server: ``Client(["http://a:8080", "http://b:8080"], api_key=...)``,
    its calls blocking (``zkfence.aio.Client`` is the same for asyncio). See ``BaseClient``."""

    @contextmanager
    def lock(self, key: str, *, ttl: float = 30.0, wait: float = 10.0, request_id: Optional[str] = None,
             auto_renew: bool = True, on_lost: Optional[Callable[[Lease], None]] = None,
             cancel: Optional[Cancellation] = None, raise_if_lost: bool = True) -> Iterator[Lease]:
        """``with client.lock(key, ttl=30, wait=10) as lease:`` acquires (see ``acquire``), yields
        the lease and releases it when the block ends. If the lease was lost during the block
        (and the block raised nothing), the block's end raises ``LeaseLost`` after the release,
        unless ``raise_if_lost`` is False."""
        with self.acquire(key, ttl=ttl, wait=wait, request_id=request_id, auto_renew=auto_renew,
                          on_lost=on_lost, cancel=cancel, raise_if_lost=raise_if_lost) as lease:
            yield lease

    def acquire(self, key: str, *, ttl: float = 30.0, wait: float = 10.0, request_id: Optional[str] = None,
                auto_renew: bool = True, on_lost: Optional[Callable[[Lease], None]] = None,
                cancel: Optional[Cancellation] = None, raise_if_lost: bool = True) -> Lease:
        """Takes the lock ``key`` for ``ttl`` seconds, waiting in FIFO order up to ``wait``
        seconds (0: do not queue). The lease renews itself in the background (every third of its
        current validity) unless ``auto_renew`` is False.

        ``request_id`` names the request for idempotency (default: a new one, reused by every
        retry of this call). ``cancel`` (a ``Cancellation``) ends the call from another thread with
        ``Cancelled``; a waiting acquire leaves the queue. ``raise_if_lost`` applies when the lease
        is used as a context manager (see ``lock``). Raises ``LockHeld`` if the lock stayed held,
        ``Unavailable`` if no replica answered in time, or the error the service answered.
        """
        a = Acquisition(self, key, ttl=ttl, wait=wait, request_id=request_id)
        if cancel is not None and not isinstance(cancel, Cancellation):
            raise TypeError("cancel must be a zkfence.Cancellation, got %r" % (cancel,))
        while True:
            outcome = self._replicas.call("POST", a.path + "/acquire", a.body, until=a.until, what=a.what, key=a.key,
                                          request_id=a.rid, cancel=cancel)
            grant = a.answered(outcome)
            if grant is not None:
                renewal = None
                if a.must_renew_first(grant, outcome):
                    renewal = self._replicas.call("POST", a.path + "/renew", a.renew_body(grant), until=a.until,
                                                  what="renew of '%s'" % a.key, key=a.key, secret=grant[0],
                                                  cancel=cancel)
                times = a.lease_times(grant, outcome, renewal)
                if times is not None:
                    lease = Lease(replicas=self._replicas, on_lost=on_lost, auto_renew=auto_renew,
                                  raise_if_lost=raise_if_lost, **a.lease_args(grant, times))
                    if cancel is not None and cancel.cancelled:  # granted as it was cancelled: give it back
                        lease.release()
                        raise Cancelled("%s: %s" % (a.what, cancel.reason))
                    return lease
            elif a.pause is not None:
                if cancel is not None:
                    if cancel.wait(a.pause):
                        raise Cancelled("%s: %s" % (a.what, cancel.reason))
                else:
                    threading.Event().wait(a.pause)
                continue
            a.next_request()

    def renew_all(self, leases: List[Lease]) -> List[RenewOutcome]:
        """Renews several leases of this client with the service's batch renewal
        (``POST /v1/leases/renew``), up to 1,000 per request, one ``RenewOutcome`` per lease in the
        order given. Each request fails over and is retried as a single renew is, within the
        leases' local deadlines (a lease whose deadline passes is left out of the next attempt).

        A renewed lease's local deadline moves exactly as ``Lease.renew()`` moves it; a lease the
        service refused (``LeaseExpired``, ``NotLockOwner``) is lost as after a refused renew
        (``lost`` set, ``on_lost`` called), while the others stay renewed. A lease lost already is
        not sent (its outcome carries ``LeaseLost``); a request that failed as a whole
        (``Unavailable``, ...) leaves its leases as they were and is each one's ``error``. Raises
        nothing for a lease's outcome; raises ``ValueError`` / ``TypeError`` before sending anything
        for an empty list, a non-lease, another client's lease, a released lease or a lease twice.
        The background renewal of each lease goes on as before (per lease).
        """
        batch = BatchRenewal(self, leases, Lease)
        for chunk in batch.chunks:
            batch.record(self._renew_chunk(chunk))
        return batch.outcomes()

    def _renew_chunk(self, chunk: Chunk) -> List[RenewOutcome]:
        try:
            outcome = self._replicas.call("POST", BATCH_PATH, chunk.body, until=chunk.until, what=chunk.what,
                                          attempt_timeout=chunk.attempt_timeout)
        except ServiceError as e:
            return chunk.failed(e)
        return chunk.answered(outcome)

    def status(self, key: str) -> LockStatus:
        """The lock's holder and waiters now, as the service sees them (a linearizable read)."""
        key = _lock_key(key)
        path = "/v1/locks/" + urllib.parse.quote(key, safe="")
        outcome = self._replicas.call("GET", path, None, until=now() + self._timeout,
                                      what="status of '%s'" % key, key=key)
        return lock_status(key, outcome)


def lock_status(key: str, outcome: Outcome) -> LockStatus:
    """The ``LockStatus`` of a status call's answer, or its error."""
    answer = outcome.answer
    body = answer.body
    if answer.status == 200 or (answer.status == 404 and body.get("error") == "NOT_LOCKED"):
        waiters = [w.get("ownerId") if isinstance(w, dict) else w for w in body.get("waiters") or []]
        locked = answer.status == 200
        return LockStatus(key, locked, body.get("ownerId") if locked else None,
                          body.get("fencingToken") if locked else None,
                          body.get("expiresAt") if locked else None, waiters)
    raise from_problem(answer.status, body, what="status of '%s'" % key, key=key,
                       retry_after_header=answer.retry_after)


Grant = Tuple[Secret, Dict[str, Any]]


class Acquisition:
    """One acquire call's state and rules, shared by the blocking client and ``zkfence.aio``:
    its requestId (a new one only after the service said the first one finished), its time
    bound, what each answer means and when the lease's local deadline is."""

    def __init__(self, client: Any, key: str, *, ttl: float, wait: float, request_id: Optional[str]):
        self.key = _lock_key(key)
        self.ttl = _seconds("ttl", ttl, positive=True)
        self.wait = _seconds("wait", wait, positive=False)
        if self.ttl < 0.001:
            raise ValueError("ttl must be at least 0.001 s (1 ms), got %r" % ttl)
        if request_id is not None and (not isinstance(request_id, str) or not request_id):
            raise ValueError("request_id must be a non-empty string or None")
        self.owner_id = client.owner_id
        self.timeout = client._timeout
        self.explicit = request_id is not None
        self.rid = request_id or uuid.uuid4().hex
        self.path = "/v1/locks/" + urllib.parse.quote(self.key, safe="")
        self.wait_end = now() + self.wait
        self.until = self.wait_end + self.timeout
        self.what = "acquire of '%s'" % self.key
        self.ttl_millis = max(1, int(round(self.ttl * 1000)))
        self.pause: Optional[float] = None  # set by answered(): sleep this long, then send again

    def body(self, at: float) -> Dict[str, Any]:
        b: Dict[str, Any] = {"ownerId": self.owner_id, "ttlMillis": self.ttl_millis, "requestId": self.rid}
        if self.wait > 0:
            b["wait"] = True
            b["waitMillis"] = max(0, int((self.wait_end - at) * 1000))
        return b

    def answered(self, outcome: Outcome) -> Optional[Grant]:
        """The grant of a 200; None with ``pause`` set (a full queue: retry after it) or not (a
        finished request of ours: ``next_request``); raises the service's refusal otherwise."""
        self.pause = None
        answer = outcome.answer
        if answer.status == 200:
            return self._grant(answer.body)
        error = from_problem(answer.status, answer.body, what=self.what, key=self.key,
                             retry_after_header=answer.retry_after)
        if isinstance(error, TooManyWaiters):
            pause = error.retry_after if error.retry_after is not None else 0.1
            if now() + pause >= self.wait_end:
                raise error
            log.info("%s (requestId %s): the queue is full; trying again in %.0f ms", self.what, self.rid, pause * 1000)
            self.pause = pause
            return None
        if not (isinstance(error, RequestFinished) and not self.explicit and outcome.attempts > 1):
            raise error
        log.warning("%s (requestId %s): the request finished (%s) while its answer was lost; "
                    "acquiring again with a new requestId", self.what, self.rid, error.outcome)
        return None

    def next_request(self) -> None:
        if now() >= self.until:
            raise LockHeld("%s: the lock could not be taken within the call's time bound" % self.what,
                           owner=None, retry_after=None, code="LOCK_ALREADY_HELD", key=self.key)
        self.rid = uuid.uuid4().hex

    def _grant(self, grant: Dict[str, Any]) -> Grant:
        token, fencing, expires = grant.get("lockToken"), grant.get("fencingToken"), grant.get("expiresAt")
        if not (isinstance(token, str) and token and isinstance(fencing, int) and not isinstance(fencing, bool)
                and fencing > 0 and isinstance(expires, int)):
            raise ServerError("acquire of '%s': the grant lacks lockToken, fencingToken or expiresAt" % self.key,
                              code="BAD_ANSWER", key=self.key)
        return Secret(token), grant

    def _sent(self, grant: Grant, outcome: Outcome) -> float:
        sent = outcome.sent
        if "validForMillis" not in grant[1] and outcome.earliest_ambiguous is not None:
            # A service from before issue 29 counts the TTL from when it granted; an earlier attempt of this
            # request that got no answer may have been granted then, as early as it was sent.
            sent = min(sent, outcome.earliest_ambiguous)
        return sent

    def must_renew_first(self, grant: Grant, outcome: Outcome) -> bool:
        """Granted so long ago (an answer lost while it waited) that the local deadline has
        passed: renew once before handing the lease out (or start again if it is gone)."""
        return self._sent(grant, outcome) + usable(validity(grant[1], self.ttl)) <= now()

    def renew_body(self, grant: Grant) -> Dict[str, Any]:
        return {"ownerId": self.owner_id, "lockToken": grant[0].reveal(), "ttlMillis": self.ttl_millis}

    def lease_times(self, grant: Grant, outcome: Outcome, renewal: Optional[Outcome]) -> Optional[Tuple[float, float]]:
        """(deadline, renew_at), or None when the grant had ended (acquire again, new requestId)."""
        sent, valid_for = self._sent(grant, outcome), validity(grant[1], self.ttl)
        if renewal is not None:
            if renewal.answer.status != 200:
                log.warning("acquire of '%s' (requestId %s): the grant had ended before its answer came (%s)",
                            self.key, self.rid, renewal.answer.body.get("error"))
                return None
            sent, valid_for = renewal.sent, validity(renewal.answer.body, self.ttl)
        log.debug("acquire of '%s' (requestId %s) granted, fencing token %d", self.key, self.rid,
                  grant[1]["fencingToken"])
        return sent + usable(valid_for), sent + valid_for / 3

    def lease_args(self, grant: Grant, times: Tuple[float, float]) -> Dict[str, Any]:
        return dict(key=self.key, owner_id=self.owner_id, request_id=self.rid, grant=grant[1], lock_token=grant[0],
                    deadline=times[0], renew_at=times[1], ttl=self.ttl, timeout=self.timeout)

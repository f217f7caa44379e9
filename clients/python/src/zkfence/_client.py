"""The client: acquires leases from the lock service's replicas."""

import logging
import os
import socket
import ssl
import time
import urllib.parse
import uuid
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional
from contextlib import contextmanager

from ._errors import LockHeld, RequestFinished, ServerError, TooManyWaiters, from_problem
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


class Client:
    """A client of zkfence-server: ``Client(["http://a:8080", "http://b:8080"], api_key=...)``.

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
        return "<zkfence.Client owner_id=%r replicas=%r>" % (self.owner_id, self.replicas)

    @contextmanager
    def lock(self, key: str, *, ttl: float = 30.0, wait: float = 10.0, request_id: Optional[str] = None,
             auto_renew: bool = True, on_lost: Optional[Callable[[Lease], None]] = None) -> Iterator[Lease]:
        """``with client.lock(key, ttl=30, wait=10) as lease:`` acquires (see ``acquire``), yields
        the lease and releases it when the block ends."""
        with self.acquire(key, ttl=ttl, wait=wait, request_id=request_id, auto_renew=auto_renew,
                          on_lost=on_lost) as lease:
            yield lease

    def acquire(self, key: str, *, ttl: float = 30.0, wait: float = 10.0, request_id: Optional[str] = None,
                auto_renew: bool = True, on_lost: Optional[Callable[[Lease], None]] = None) -> Lease:
        """Takes the lock ``key`` for ``ttl`` seconds, waiting in FIFO order up to ``wait``
        seconds (0: do not queue). The lease renews itself in the background (every third of its
        current validity) unless ``auto_renew`` is False.

        ``request_id`` names the request for idempotency (default: a new one, reused by every
        retry of this call). Raises ``LockHeld`` if the lock stayed held, ``Unavailable`` if no
        replica answered in time, or the error the service answered.
        """
        key = _lock_key(key)
        ttl = _seconds("ttl", ttl, positive=True)
        wait = _seconds("wait", wait, positive=False)
        if ttl < 0.001:
            raise ValueError("ttl must be at least 0.001 s (1 ms), got %r" % ttl)
        if request_id is not None and (not isinstance(request_id, str) or not request_id):
            raise ValueError("request_id must be a non-empty string or None")
        explicit = request_id is not None
        rid = request_id or uuid.uuid4().hex
        path = "/v1/locks/" + urllib.parse.quote(key, safe="")
        start = time.monotonic()
        wait_end = start + wait
        until = wait_end + self._timeout
        what = "acquire of '%s'" % key
        ttl_millis = max(1, int(round(ttl * 1000)))
        while True:
            def body(now: float, rid: str = rid) -> Dict[str, Any]:
                b: Dict[str, Any] = {"ownerId": self.owner_id, "ttlMillis": ttl_millis, "requestId": rid}
                if wait > 0:
                    b["wait"] = True
                    b["waitMillis"] = max(0, int((wait_end - now) * 1000))
                return b

            outcome = self._replicas.call("POST", path + "/acquire", body, until=until, what=what, key=key,
                                          request_id=rid)
            answer = outcome.answer
            if answer.status == 200:
                lease = self._granted(key, rid, answer.body, outcome, ttl, until, auto_renew, on_lost)
                if lease is not None:
                    return lease
            else:
                error = from_problem(answer.status, answer.body, what=what, key=key,
                                     retry_after_header=answer.retry_after)
                if isinstance(error, TooManyWaiters):
                    pause = error.retry_after if error.retry_after is not None else 0.1
                    if time.monotonic() + pause >= wait_end:
                        raise error
                    log.info("%s (requestId %s): the queue is full; trying again in %.0f ms", what, rid, pause * 1000)
                    time.sleep(pause)
                    continue
                if not (isinstance(error, RequestFinished) and not explicit and outcome.attempts > 1):
                    raise error
                log.warning("%s (requestId %s): the request finished (%s) while its answer was lost; "
                            "acquiring again with a new requestId", what, rid, error.outcome)
            if time.monotonic() >= until:
                raise LockHeld("%s: the lock could not be taken within the call's time bound" % what,
                               owner=None, retry_after=None, code="LOCK_ALREADY_HELD", key=key)
            rid = uuid.uuid4().hex

    def _granted(self, key: str, rid: str, grant: Dict[str, Any], outcome: Outcome, ttl: float, until: float,
                 auto_renew: bool, on_lost: Optional[Callable[[Lease], None]]) -> Optional[Lease]:
        """The lease for a 200 answer, or None if the grant turned out to be over already."""
        token, fencing, expires = grant.get("lockToken"), grant.get("fencingToken"), grant.get("expiresAt")
        if not (isinstance(token, str) and token and isinstance(fencing, int) and not isinstance(fencing, bool)
                and fencing > 0 and isinstance(expires, int)):
            raise ServerError("acquire of '%s': the grant lacks lockToken, fencingToken or expiresAt" % key,
                              code="BAD_ANSWER", key=key)
        secret = Secret(token)
        sent = outcome.sent
        if "validForMillis" not in grant and outcome.earliest_ambiguous is not None:
            # A service from before issue 29 counts the TTL from when it granted; an earlier attempt of this
            # request that got no answer may have been granted then, as early as it was sent.
            sent = min(sent, outcome.earliest_ambiguous)
        valid_for = validity(grant, ttl)
        deadline = sent + valid_for
        if deadline <= time.monotonic():
            # Granted so long ago (an answer lost while it waited) that the local deadline has
            # passed: renew once before handing the lease out, or start again if it is gone.
            path = "/v1/locks/" + urllib.parse.quote(key, safe="")
            renewed = self._replicas.call(
                "POST", path + "/renew", {"ownerId": self.owner_id, "lockToken": token,
                                          "ttlMillis": max(1, int(round(ttl * 1000)))},
                until=until, what="renew of '%s'" % key, key=key, secret=secret)
            if renewed.answer.status != 200:
                log.warning("acquire of '%s' (requestId %s): the grant had ended before its answer came (%s)",
                            key, rid, renewed.answer.body.get("error"))
                return None
            sent, valid_for = renewed.sent, validity(renewed.answer.body, ttl)
            deadline = sent + valid_for
        log.debug("acquire of '%s' (requestId %s) granted, fencing token %d", key, rid, fencing)
        return Lease(replicas=self._replicas, key=key, owner_id=self.owner_id, request_id=rid, grant=grant,
                     lock_token=secret, deadline=deadline, renew_at=sent + valid_for / 3, ttl=ttl,
                     timeout=self._timeout, auto_renew=auto_renew, on_lost=on_lost)

    def status(self, key: str) -> LockStatus:
        """The lock's holder and waiters now, as the service sees them (a linearizable read)."""
        key = _lock_key(key)
        path = "/v1/locks/" + urllib.parse.quote(key, safe="")
        outcome = self._replicas.call("GET", path, None, until=time.monotonic() + self._timeout,
                                      what="status of '%s'" % key, key=key)
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

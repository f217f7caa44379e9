"""A held lock: its fencing token, its local deadline and the thread that renews it."""

import logging
import threading
import urllib.parse
from typing import Any, Callable, Dict, Optional

from ._clock import now, usable
from ._errors import LeaseExpired, LeaseLost, NotLockOwner, RequestFinished, ServiceError, from_problem
from ._http import Secret
from ._replicas import Outcome, Replicas, Stopped

log = logging.getLogger("zkfence")

HELD, LOST, RELEASED = "held", "lost", "released"

#: Refusals after which the service will never renew the lease again.
FINAL = (LeaseExpired, NotLockOwner, RequestFinished)


def validity(answer: Dict[str, Any], ttl: float) -> float:
    """Seconds the lease lasts from the moment the request was sent: the service's
    ``validForMillis`` (counted from when it received the request), else the TTL (counted by
    a service from before issue 29 from when it handled the request, which is after the send)."""
    millis = answer.get("validForMillis")
    if isinstance(millis, (int, float)) and not isinstance(millis, bool) and millis >= 0:
        return millis / 1000.0
    return ttl


class LeaseCore:
    """What the blocking ``Lease`` and ``zkfence.aio.Lease`` share: the token, the local deadline
    and the state (held → lost | released), behind one lock."""

    def __init__(self, *, key: str, owner_id: str, request_id: str, grant: Dict[str, Any], lock_token: Secret,
                 deadline: float, renew_at: float, ttl: float, timeout: float, auto_renew: bool,
                 raise_if_lost: bool):
        self.key = key
        self.owner_id = owner_id
        self.request_id = request_id
        self.fencing_token: int = grant["fencingToken"]
        self.expires_at: int = grant["expiresAt"]  # epoch ms on the replica's clock, for display
        self._secret = lock_token
        self._ttl = ttl
        self._timeout = timeout
        self._auto_renew = auto_renew
        self._raise_if_lost = raise_if_lost
        self._mutex = threading.Lock()
        self._state = HELD
        self._reason: Optional[BaseException] = None
        self._deadline = deadline
        self._renew_at = renew_at
        self._was_held: Optional[bool] = None
        self._pending_failure: Optional[BaseException] = None  # the last renewal failure, if any
        self._path = "/v1/locks/" + urllib.parse.quote(key, safe="")

    # -- what the holder asks ------------------------------------------------------------------

    @property
    def valid(self) -> bool:
        """True while the lease is held and its local deadline has not passed."""
        with self._mutex:
            return self._state == HELD and now() < self._deadline

    def remaining(self) -> float:
        """Seconds left until the local deadline (0 once the lease is not valid)."""
        with self._mutex:
            if self._state != HELD:
                return 0.0
            return max(0.0, self._deadline - now())

    @property
    def state(self) -> str:
        """``"held"``, ``"lost"`` or ``"released"`` (a held lease past its deadline reads ``"lost"``)."""
        with self._mutex:
            if self._state == HELD and now() >= self._deadline:
                return LOST
            return self._state

    @property
    def lost_reason(self) -> Optional[BaseException]:
        """What ended the lease: the service's refusal, ``Unavailable`` (no replica renewed it in
        time), or None (not lost, or not renewed by choice)."""
        with self._mutex:
            return self._reason

    def check(self) -> None:
        """Returns if the lease is valid now, else raises ``LeaseLost``. Call it before each write."""
        error = self._lost_error()
        if error is not None:
            raise error

    def __repr__(self) -> str:
        return "<%s %r owner=%r fencing_token=%d state=%s remaining=%.3fs>" % (
            type(self).__name__, self.key, self.owner_id, self.fencing_token, self.state, self.remaining())

    # -- shared mechanics ----------------------------------------------------------------------

    def _lost_error(self, *, ended_in_block: bool = False) -> Optional[LeaseLost]:
        with self._mutex:
            state, reason, deadline = self._state, self._reason, self._deadline
        at = now()
        if state == HELD and at < deadline:
            return None
        if state == RELEASED and not ended_in_block:
            why = "it was released"
        elif reason is not None:
            why = str(reason)
        else:
            why = "its local deadline passed %.0f ms ago without a renewal" % ((at - deadline) * 1000)
        what = "lost before the end of its block" if ended_in_block else "not valid"
        return LeaseLost("lease on lock '%s' (fencing token %d) is %s: %s; stop writing with this token"
                         % (self.key, self.fencing_token, what, why),
                         key=self.key, fencing_token=self.fencing_token, reason=reason)

    def _lost_in_block(self) -> Optional[LeaseLost]:
        """At the end of a ``with`` block: the ``LeaseLost`` to raise if the lease was lost in it
        (and the lease was not acquired with ``raise_if_lost=False``)."""
        if not self._raise_if_lost:
            return None
        with self._mutex:
            released = self._state == RELEASED
        return None if released else self._lost_error(ended_in_block=True)

    def _renew_body(self) -> Dict[str, Any]:
        return {"ownerId": self.owner_id, "lockToken": self._secret.reveal(), "ttlMillis": max(1, int(self._ttl * 1000))}

    def _release_body(self) -> Dict[str, Any]:
        return {"ownerId": self.owner_id, "lockToken": self._secret.reveal()}

    def _start_release(self) -> Optional[bool]:
        """Marks the lease released. Returns what to answer without asking the service (already
        released, or refused for good), or None: send the release."""
        with self._mutex:
            if self._state == RELEASED:
                return bool(self._was_held)
            refused = isinstance(self._reason, FINAL)
            self._state = RELEASED
        if refused:  # the service has said the lease is gone: nothing to give back
            self._was_held = False
            return False
        return None

    def _finish_release(self, outcome: Outcome) -> bool:
        answer = outcome.answer
        if answer.status != 200:
            raise from_problem(answer.status, answer.body, what="release of '%s'" % self.key, key=self.key,
                               retry_after_header=answer.retry_after)
        self._was_held = bool(answer.body.get("wasHeld"))
        return self._was_held

    def _next_due(self) -> Optional[float]:
        """When the renewer acts next (None: stop). At the deadline it loses the lease."""
        with self._mutex:
            if self._state != HELD:
                return None
            return min(self._renew_at, self._deadline) if self._auto_renew else self._deadline

    def _renewal(self, outcome: Outcome) -> Optional[ServiceError]:
        """Applies a renewal's answer: None if renewed (or the lease is over), else the refusal
        (the lease is already lost for a final one)."""
        answer = outcome.answer
        if answer.status == 200:
            valid_for = validity(answer.body, self._ttl)
            with self._mutex:
                if self._state == HELD:
                    self._deadline = max(self._deadline, outcome.sent + usable(valid_for))
                    self._renew_at = outcome.sent + valid_for / 3
                    self._pending_failure = None
                    expires = answer.body.get("expiresAt")
                    if isinstance(expires, int):
                        self.expires_at = expires
            return None
        error = from_problem(answer.status, answer.body, what="renew of '%s'" % self.key, key=self.key,
                             retry_after_header=answer.retry_after)
        if isinstance(error, FINAL):
            self._lose(error)
            return error
        # Refused for a reason that may pass (a key being rotated, a server error): keep the
        # lease until its deadline and try again in a while.
        log.error("renew of '%s' (fencing token %d) refused: %s; retrying until the lease's local deadline",
                  self.key, self.fencing_token, error)
        self._retry_later(error)
        return error

    def _retry_later(self, failure: BaseException) -> None:
        with self._mutex:
            self._pending_failure = failure
            self._renew_at = now() + min(1.0, max(0.0, self._deadline - now()) / 4)

    def _deadline_passed(self) -> bool:
        """Loses the lease if its deadline has passed; True then."""
        with self._mutex:
            passed = self._state == HELD and now() >= self._deadline
            pending = self._pending_failure
        if passed:
            self._lose(pending)
        return passed

    def _lose(self, reason: Optional[BaseException]) -> bool:
        """Marks the lease lost (once); True if this call did."""
        with self._mutex:
            if self._state != HELD:
                return False
            self._state = LOST
            self._reason = reason
        log.warning("lease on lock '%s' (fencing token %d) lost: %s", self.key, self.fencing_token,
                    reason if reason is not None else "its local deadline passed (not renewed)")
        return True


class Lease(LeaseCore):
    """A lock granted by the service, valid until its local deadline unless renewed.

    ``fencing_token`` goes with every write the lock protects; the resource rejects lower ones.
    ``valid`` turns False at the local deadline (counted on a clock that runs through suspend,
    ``CLOCK_BOOTTIME`` on Linux, from the moment the granting or last renewing request was *sent*,
    less a drift margin, so it errs early, never late), or as soon as the service refuses a
    renewal; then ``lost`` is set, ``on_lost(lease)`` runs once (on the renewal thread) and
    ``check()`` raises ``LeaseLost``. Use it as a context manager, or call ``release()``.
    """

    def __init__(self, *, replicas: Replicas, on_lost: Optional[Callable[["Lease"], None]], **core: Any):
        super().__init__(**core)
        self.lost = threading.Event()
        self._replicas = replicas
        self._on_lost = on_lost
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="zkfence-lease " + self.key, daemon=True)
        self._thread.start()

    def renew(self) -> None:
        """Renews now, in this thread (the background renewal does it by itself unless the lease
        was acquired with ``auto_renew=False``). Raises ``LeaseLost`` if the lease is or becomes
        lost, ``Unavailable`` if no replica answered before the local deadline."""
        self.check()
        with self._mutex:
            deadline = self._deadline
        try:
            outcome = self._send_renew(deadline)
        except Stopped:  # released meanwhile
            self.check()
            raise
        refusal = self._renewal(outcome)
        if refusal is not None:
            self.check()
            raise refusal

    def release(self) -> bool:
        """Gives the lock back (stops the renewal first). Returns whether the service still held
        the lease (False: it had ended already). Idempotent. Raises ``Unavailable`` if no replica
        answered within the client's timeout (the lease then ends at its TTL)."""
        known = self._start_release()
        self._stop.set()
        if known is not None:
            return known
        return self._finish_release(self._replicas.call(
            "POST", self._path + "/release", self._release_body(), until=now() + self._timeout,
            what="release of '%s'" % self.key, key=self.key, secret=self._secret))

    def __enter__(self) -> "Lease":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc is None:
            lost = self._lost_in_block()
            self.release()
            if lost is not None:
                raise lost
            return
        try:
            self.release()
        except ServiceError as e:
            # Not raised over the caller's own exception; the lease ends at its TTL anyway.
            log.warning("release of '%s' after a failure in the locked block failed too: %s", self.key, e)

    # -- the renewal thread ----------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            due = self._next_due()
            if due is None or self._deadline_passed():
                return
            wait = due - now()
            if wait > 0:
                if self._stop.wait(wait):
                    return
                continue
            with self._mutex:
                deadline = self._deadline
            try:
                outcome = self._send_renew(deadline)
            except Stopped:
                return
            except ServiceError as e:  # Unavailable (no replica answered in time) or a bad answer
                self._retry_later(e)
                continue
            self._renewal(outcome)

    def _send_renew(self, deadline: float) -> Outcome:
        # Each attempt gets half of what is left, so a replica that does not answer (paused)
        # leaves time to renew through another one before the deadline.
        return self._replicas.call(
            "POST", self._path + "/renew", self._renew_body(), until=deadline, what="renew of '%s'" % self.key,
            key=self.key, stop=self._stop, secret=self._secret,
            attempt_timeout=lambda at, until: max(0.001, (until - at) / 2))

    def _lose(self, reason: Optional[BaseException]) -> bool:
        if not super()._lose(reason):
            return False
        self.lost.set()
        if self._on_lost is not None:
            try:
                self._on_lost(self)
            except Exception:  # the callback's own failure must not end the renewal thread silently
                log.exception("on_lost callback for lock '%s' raised", self.key)
        return True

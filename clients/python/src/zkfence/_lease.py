"""A held lock: its fencing token, its local deadline and the thread that renews it."""

import logging
import threading
import time
import urllib.parse
from typing import Any, Callable, Dict, Optional

from ._errors import LeaseExpired, LeaseLost, NotLockOwner, RequestFinished, ServiceError, from_problem
from ._http import Secret
from ._replicas import Outcome, Replicas, Stopped

log = logging.getLogger("zkfence")

HELD, LOST, RELEASED = "held", "lost", "released"

#: Refusals after which the service will never renew the lease again.
_FINAL = (LeaseExpired, NotLockOwner, RequestFinished)


def validity(answer: Dict[str, Any], ttl: float) -> float:
    """Seconds the lease lasts from the moment the request was sent: the service's
    ``validForMillis`` (counted from when it received the request), else the TTL (counted by
    a service from before issue 29 from when it handled the request, which is after the send)."""
    millis = answer.get("validForMillis")
    if isinstance(millis, (int, float)) and not isinstance(millis, bool) and millis >= 0:
        return millis / 1000.0
    return ttl


class Lease:
    """A lock granted by the service, valid until its local deadline unless renewed.

    ``fencing_token`` goes with every write the lock protects; the resource rejects lower ones.
    ``valid`` turns False at the local deadline (measured on this machine's monotonic clock from
    the moment the granting or last renewing request was *sent*, so it errs early, never late),
    or as soon as the service refuses a renewal; then ``lost`` is set, ``on_lost(lease)`` runs
    once (on the renewal thread) and ``check()`` raises ``LeaseLost``. Use it as a context
    manager, or call ``release()``.
    """

    def __init__(self, *, replicas: Replicas, key: str, owner_id: str, request_id: str, grant: Dict[str, Any],
                 lock_token: Secret, deadline: float, renew_at: float, ttl: float, timeout: float,
                 auto_renew: bool, on_lost: Optional[Callable[["Lease"], None]]):
        self.key = key
        self.owner_id = owner_id
        self.request_id = request_id
        self.fencing_token: int = grant["fencingToken"]
        self.expires_at: int = grant["expiresAt"]  # epoch ms on the replica's clock, for display
        self.lost = threading.Event()
        self._replicas = replicas
        self._secret = lock_token
        self._ttl = ttl
        self._timeout = timeout
        self._on_lost = on_lost
        self._auto_renew = auto_renew
        self._mutex = threading.Lock()
        self._state = HELD
        self._reason: Optional[BaseException] = None
        self._deadline = deadline
        self._renew_at = renew_at
        self._was_held: Optional[bool] = None
        self._pending_failure: Optional[BaseException] = None  # the last renewal failure, if any
        self._stop = threading.Event()
        self._path = "/v1/locks/" + urllib.parse.quote(key, safe="")
        self._thread = threading.Thread(target=self._run, name="zkfence-lease " + key, daemon=True)
        self._thread.start()

    # -- what the holder asks ------------------------------------------------------------------

    @property
    def valid(self) -> bool:
        """True while the lease is held and its local deadline has not passed."""
        with self._mutex:
            return self._state == HELD and time.monotonic() < self._deadline

    def remaining(self) -> float:
        """Seconds left until the local deadline (0 once the lease is not valid)."""
        with self._mutex:
            if self._state != HELD:
                return 0.0
            return max(0.0, self._deadline - time.monotonic())

    @property
    def state(self) -> str:
        """``"held"``, ``"lost"`` or ``"released"`` (a held lease past its deadline reads ``"lost"``)."""
        with self._mutex:
            if self._state == HELD and time.monotonic() >= self._deadline:
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
        with self._mutex:
            state, reason, deadline = self._state, self._reason, self._deadline
        now = time.monotonic()
        if state == HELD and now < deadline:
            return
        if state == RELEASED:
            why = "it was released"
        elif reason is not None:
            why = str(reason)
        else:
            why = "its local deadline passed %.0f ms ago without a renewal" % ((now - deadline) * 1000)
        raise LeaseLost("lease on lock '%s' (fencing token %d) is not valid: %s; stop writing with this token"
                        % (self.key, self.fencing_token, why),
                        key=self.key, fencing_token=self.fencing_token, reason=reason)

    def renew(self) -> None:
        """Renews now, in this thread (the background renewal does it by itself unless the lease
        was acquired with ``auto_renew=False``). Raises ``LeaseLost`` if the lease is or becomes
        lost, ``Unavailable`` if no replica answered before the local deadline."""
        self.check()
        try:
            outcome = self._send_renew(self._deadline_now())
        except Stopped:  # released meanwhile
            self.check()
            raise
        self._apply_renewal(outcome, raise_refusal=True)

    def release(self) -> bool:
        """Gives the lock back (stops the renewal first). Returns whether the service still held
        the lease (False: it had ended already). Idempotent. Raises ``Unavailable`` if no replica
        answered within the client's timeout (the lease then ends at its TTL)."""
        with self._mutex:
            if self._state == RELEASED:
                return bool(self._was_held)
            refused = isinstance(self._reason, _FINAL)
            self._state = RELEASED
        self._stop.set()
        if refused:  # the service has said the lease is gone: nothing to give back
            self._was_held = False
            return False
        outcome = self._replicas.call(
            "POST", self._path + "/release", {"ownerId": self.owner_id, "lockToken": self._secret.reveal()},
            until=time.monotonic() + self._timeout, what="release of '%s'" % self.key, key=self.key,
            secret=self._secret)
        answer = outcome.answer
        if answer.status != 200:
            raise from_problem(answer.status, answer.body, what="release of '%s'" % self.key, key=self.key,
                               retry_after_header=answer.retry_after)
        self._was_held = bool(answer.body.get("wasHeld"))
        return self._was_held

    def __enter__(self) -> "Lease":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc is None:
            self.release()
            return
        try:
            self.release()
        except ServiceError as e:
            # Not raised over the caller's own exception; the lease ends at its TTL anyway.
            log.warning("release of '%s' after a failure in the locked block failed too: %s", self.key, e)

    def __repr__(self) -> str:
        return "<Lease %r owner=%r fencing_token=%d state=%s remaining=%.3fs>" % (
            self.key, self.owner_id, self.fencing_token, self.state, self.remaining())

    # -- the renewal thread ----------------------------------------------------------------------

    def _deadline_now(self) -> float:
        with self._mutex:
            return self._deadline

    def _run(self) -> None:
        while True:
            with self._mutex:
                if self._state != HELD:
                    return
                deadline = self._deadline
                due = min(self._renew_at, deadline) if self._auto_renew else deadline
            now = time.monotonic()
            if now >= deadline:
                self._lose(self._reason_at_deadline())
                return
            if due > now:
                if self._stop.wait(due - now):
                    return
                continue
            try:
                outcome = self._send_renew(deadline)
            except Stopped:
                return
            except ServiceError as e:  # Unavailable (no replica answered in time) or a bad answer
                self._retry_later(e)
                continue
            self._apply_renewal(outcome, raise_refusal=False)

    def _retry_later(self, failure: BaseException) -> None:
        with self._mutex:
            self._pending_failure = failure
            self._renew_at = time.monotonic() + min(1.0, max(0.0, self._deadline - time.monotonic()) / 4)

    def _reason_at_deadline(self) -> Optional[BaseException]:
        with self._mutex:
            return self._pending_failure

    def _send_renew(self, deadline: float) -> Outcome:
        # Each attempt gets half of what is left, so a replica that does not answer (paused)
        # leaves time to renew through another one before the deadline.
        return self._replicas.call(
            "POST", self._path + "/renew",
            {"ownerId": self.owner_id, "lockToken": self._secret.reveal(), "ttlMillis": int(self._ttl * 1000)},
            until=deadline, what="renew of '%s'" % self.key, key=self.key, stop=self._stop, secret=self._secret,
            attempt_timeout=lambda now, until: max(0.001, (until - now) / 2))

    def _apply_renewal(self, outcome: Outcome, *, raise_refusal: bool) -> None:
        answer = outcome.answer
        if answer.status == 200:
            valid_for = validity(answer.body, self._ttl)
            with self._mutex:
                if self._state == HELD:
                    self._deadline = max(self._deadline, outcome.sent + valid_for)
                    self._renew_at = outcome.sent + valid_for / 3
                    self._pending_failure = None
                    expires = answer.body.get("expiresAt")
                    if isinstance(expires, int):
                        self.expires_at = expires
            return
        error = from_problem(answer.status, answer.body, what="renew of '%s'" % self.key, key=self.key,
                             retry_after_header=answer.retry_after)
        if isinstance(error, _FINAL):
            self._lose(error)
            if raise_refusal:
                self.check()
            return
        # Refused for a reason that may pass (a key being rotated, a server error): keep the
        # lease until its deadline and try again in a while.
        log.error("renew of '%s' (fencing token %d) refused: %s; retrying until the lease's local deadline",
                  self.key, self.fencing_token, error)
        self._retry_later(error)
        if raise_refusal:
            raise error

    def _lose(self, reason: Optional[BaseException]) -> None:
        with self._mutex:
            if self._state != HELD:
                return
            self._state = LOST
            self._reason = reason
        self.lost.set()
        log.warning("lease on lock '%s' (fencing token %d) lost: %s", self.key, self.fencing_token,
                    reason if reason is not None else "its local deadline passed (not renewed)")
        if self._on_lost is not None:
            try:
                self._on_lost(self)
            except Exception:  # the callback's own failure must not end the renewal thread silently
                log.exception("on_lost callback for lock '%s' raised", self.key)

"""Calls that fail over across the replicas: the same request again on connection errors and
503 ``UNAVAILABLE`` / ``SHUTTING_DOWN``, with jittered exponential back-off per replica, within
the caller's time bound. The policy (``Replicas``, ``Attempts``) is shared by the blocking client
and ``zkfence.aio``; each has its own loop."""

import logging
import random
import ssl
import threading
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union

from ._cancel import Cancellation
from ._clock import now
from ._errors import Cancelled, ServerError, Unavailable, from_problem, retry_after_seconds
from ._http import Answer, BadAnswer, NoAnswer, Replica, Secret, Unreached, exchange

log = logging.getLogger("zkfence")

#: First back-off after a replica failed (seconds); doubles per failure of the call, up to the cap.
BACKOFF_BASE = 0.05
BACKOFF_CAP = 2.0

Body = Union[None, Dict[str, Any], Callable[[float], Dict[str, Any]]]


class Stopped(Exception):
    """The call's stop event was set while it waited to retry."""


class Outcome(NamedTuple):
    """A call's answer and what its attempts tell about when the replica acted on it."""

    answer: Answer
    sent: float  # the answering attempt's send time (the client's clock, _clock.now)
    earliest_ambiguous: Optional[float]  # earliest send of an attempt that may have acted, unanswered
    attempts: int


class _State:
    __slots__ = ("replica", "not_before")

    def __init__(self, replica: Replica):
        self.replica = replica
        self.not_before = 0.0


class Replicas:
    """The replicas of one client, the one that answered last first."""

    def __init__(self, urls: List[str], headers: Dict[str, str], ssl_context: Optional[ssl.SSLContext],
                 rng: Optional[random.Random] = None):
        if isinstance(urls, (str, bytes)) or not urls:
            raise ValueError("replicas must be a non-empty list of URLs, e.g. ['http://zkfence-a:8080'], got %r"
                             % (urls,))
        self._states = [_State(Replica(u)) for u in list(urls)]
        self.headers = headers
        self.ssl = ssl_context
        self._rng = rng or random.Random()
        self._preferred = 0
        self._lock = threading.Lock()

    @property
    def urls(self) -> List[str]:
        return [s.replica.url for s in self._states]

    def next(self, at: float) -> _State:
        with self._lock:
            n = len(self._states)
            ordered = [self._states[(self._preferred + i) % n] for i in range(n)]
        for s in ordered:
            if s.not_before <= at:
                return s
        return min(ordered, key=lambda s: s.not_before)

    def failed(self, state: _State, failures: int, hint: Optional[float]) -> float:
        pause = self._rng.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * (2 ** failures)))
        if hint is not None:
            pause = max(pause, hint)
        with self._lock:
            state.not_before = now() + pause
            i = self._states.index(state)
            if self._preferred == i:
                self._preferred = (i + 1) % len(self._states)
        return pause

    def answered(self, state: _State) -> None:
        with self._lock:
            state.not_before = 0.0
            self._preferred = self._states.index(state)

    def attempts(self, *, until: float, what: str, key: Optional[str], request_id: Optional[str],
                 secret: Optional[Secret]) -> "Attempts":
        return Attempts(self, until=until, what=what, key=key, request_id=request_id, secret=secret)

    def call(self, method: str, path: str, body: Body, *, until: float, what: str, key: Optional[str] = None,
             request_id: Optional[str] = None, attempt_timeout: Optional[Callable[[float, float], float]] = None,
             stop: Optional[threading.Event] = None, cancel: Optional[Cancellation] = None,
             secret: Optional[Secret] = None) -> Outcome:
        """Sends the request until a replica answers it with anything but a retryable failure,
        or ``until`` (on ``_clock.now``) passes (``Unavailable``, the last failure as its cause).

        ``body`` may be a function of the send time (an acquire's remaining wait).
        ``attempt_timeout(now, until)`` bounds one attempt (default: all that is left). ``stop``
        (set: ``Stopped``) and ``cancel`` (``Cancelled``) end the call early.
        """
        tries = self.attempts(until=until, what=what, key=key, request_id=request_id, secret=secret)
        while True:
            state, start = tries.next()
            at = now()
            if start > at:
                if stop is not None and stop.wait(start - at):
                    raise Stopped()
                if cancel is not None and cancel.wait(start - at):
                    raise _cancelled(cancel, tries.label)
                if stop is None and cancel is None:
                    threading.Event().wait(start - at)
                at = now()
            if cancel is not None and cancel.cancelled:
                raise _cancelled(cancel, tries.label)
            timeout = until - at if attempt_timeout is None else attempt_timeout(at, until)
            payload = body(at) if callable(body) else body
            sent = tries.sending(state)
            try:
                answer = exchange(state.replica, method, path, payload, self.headers, timeout, self.ssl, cancel)
            except (Unreached, NoAnswer, BadAnswer) as e:
                if cancel is not None and cancel.cancelled:
                    raise _cancelled(cancel, tries.label) from e
                tries.failed(state, e, sent)
                continue
            outcome = tries.answered(state, answer, sent)
            if outcome is not None:
                return outcome


def _cancelled(cancel: Cancellation, label: str) -> Cancelled:
    return Cancelled("%s: %s" % (label, cancel.reason or "cancelled"))


class Attempts:
    """One call's attempts: which replica next, what a failure or an answer means, the log."""

    def __init__(self, replicas: Replicas, *, until: float, what: str, key: Optional[str],
                 request_id: Optional[str], secret: Optional[Secret]):
        self._replicas = replicas
        self.until = until
        self.key = key
        self.request_id = request_id
        self._secret = secret
        self.failures = 0
        self.earliest_ambiguous: Optional[float] = None
        self.last: Optional[BaseException] = None
        self.label = what + ("" if request_id is None else " (requestId %s)" % request_id)

    def next(self) -> Tuple[_State, float]:
        """The replica to try next and when; ``Unavailable`` once that is past the bound."""
        at = now()
        state = self._replicas.next(at)
        start = max(at, state.not_before)
        if start >= self.until:
            last = self.last
            raise Unavailable("%s: no replica answered within the call's time bound (%d attempts on %s)%s"
                              % (self.label, self.failures, ", ".join(self._replicas.urls),
                                 "; last: %s" % last if last else ""),
                              code="UNAVAILABLE", key=self.key, detail=str(last) if last else None) from last
        return state, start

    def sending(self, state: _State) -> float:
        log.debug("%s: sending to %s", self.label, state.replica, extra={"zkfence_request_id": self.request_id,
                                                                        "zkfence_replica": state.replica.url})
        return now()

    def failed(self, state: _State, e: BaseException, sent: float) -> None:
        """An attempt that got no usable answer: retried (``BadAnswer`` is raised)."""
        if isinstance(e, BadAnswer):
            raise ServerError("%s: %s" % (self.label, e), code="BAD_ANSWER", key=self.key) from e
        if isinstance(e, NoAnswer):
            self._ambiguous(sent)
        self.last = e
        self._retry(state, None)

    def answered(self, state: _State, answer: Answer, sent: float) -> Optional[Outcome]:
        """The outcome, or None when the answer is a 503 to retry."""
        if self._secret is not None:
            answer = Answer(answer.status, _redacted(answer.body, self._secret), answer.retry_after)
        code = answer.body.get("error")
        if answer.status != 503 or code not in ("UNAVAILABLE", "SHUTTING_DOWN"):
            self._replicas.answered(state)
            return Outcome(answer, sent, self.earliest_ambiguous, self.failures + 1)
        if code == "UNAVAILABLE":
            self._ambiguous(sent)  # ZooKeeper trouble: a write may have been applied before the answer was lost
        self.last = from_problem(answer.status, answer.body, what=state.replica.url, key=self.key)
        self._retry(state, retry_after_seconds(answer.body, answer.retry_after))
        return None

    def _ambiguous(self, sent: float) -> None:
        self.earliest_ambiguous = sent if self.earliest_ambiguous is None else min(self.earliest_ambiguous, sent)

    def _retry(self, state: _State, hint: Optional[float]) -> None:
        pause = self._replicas.failed(state, self.failures, hint)
        self.failures += 1
        level = logging.INFO if getattr(self.last, "code", None) == "SHUTTING_DOWN" else logging.WARNING
        log.log(level, "%s failed: %s; retrying with the same request, %.0f ms left",
                self.label, self.last, max(0.0, self.until - now()) * 1000,
                extra={"zkfence_request_id": self.request_id, "zkfence_replica": state.replica.url,
                       "zkfence_backoff": pause})


def _redacted(body: Dict[str, Any], secret: Secret) -> Dict[str, Any]:
    return {k: secret.redact(v) if isinstance(v, str) and k != "lockToken" else v for k, v in body.items()}

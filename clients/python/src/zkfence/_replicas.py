"""Calls that fail over across the replicas: the same request again on connection errors and
503 ``UNAVAILABLE`` / ``SHUTTING_DOWN``, with jittered exponential back-off per replica, within
the caller's time bound."""

import logging
import random
import ssl
import threading
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Union

from ._errors import ServerError, Unavailable, from_problem, retry_after_seconds
from ._http import Answer, BadAnswer, NoAnswer, Replica, Secret, Unreached, exchange

log = logging.getLogger("zkfence")

#: First back-off after a replica failed (seconds); doubles per failure of the call, up to the cap.
BACKOFF_BASE = 0.05
BACKOFF_CAP = 2.0


class Stopped(Exception):
    """The call's stop event was set while it waited to retry."""


class Outcome(NamedTuple):
    """A call's answer and what its attempts tell about when the replica acted on it."""

    answer: Answer
    sent: float  # monotonic time the answering attempt was sent
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
        self._headers = headers
        self._ssl = ssl_context
        self._rng = rng or random.Random()
        self._preferred = 0
        self._lock = threading.Lock()

    @property
    def urls(self) -> List[str]:
        return [s.replica.url for s in self._states]

    def _next(self, now: float) -> _State:
        with self._lock:
            n = len(self._states)
            ordered = [self._states[(self._preferred + i) % n] for i in range(n)]
        for s in ordered:
            if s.not_before <= now:
                return s
        return min(ordered, key=lambda s: s.not_before)

    def _failed(self, state: _State, failures: int, hint: Optional[float]) -> float:
        pause = self._rng.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * (2 ** failures)))
        if hint is not None:
            pause = max(pause, hint)
        with self._lock:
            state.not_before = time.monotonic() + pause
            i = self._states.index(state)
            if self._preferred == i:
                self._preferred = (i + 1) % len(self._states)
        return pause

    def _answered(self, state: _State) -> None:
        with self._lock:
            state.not_before = 0.0
            self._preferred = self._states.index(state)

    def call(self, method: str, path: str, body: Union[None, Dict[str, Any], Callable[[float], Dict[str, Any]]],
             *, until: float, what: str, key: Optional[str] = None, request_id: Optional[str] = None,
             attempt_timeout: Optional[Callable[[float, float], float]] = None,
             stop: Optional[threading.Event] = None, secret: Optional[Secret] = None) -> Outcome:
        """Sends the request until a replica answers it with anything but a retryable failure,
        or ``until`` (monotonic) passes (``Unavailable``, the last failure as its cause).

        ``body`` may be a function of the monotonic send time (an acquire's remaining wait).
        ``attempt_timeout(now, until)`` bounds one attempt (default: all that is left).
        """
        failures = 0
        earliest_ambiguous: Optional[float] = None
        last: Optional[BaseException] = None
        label = what + ("" if request_id is None else " (requestId %s)" % request_id)
        while True:
            hint: Optional[float] = None
            now = time.monotonic()
            state = self._next(now)
            start = max(now, state.not_before)
            if start >= until:
                raise Unavailable("%s: no replica answered within the call's time bound (%d attempts on %s)%s"
                                  % (label, failures, ", ".join(self.urls), "; last: %s" % last if last else ""),
                                  code="UNAVAILABLE", key=key, detail=str(last) if last else None) from last
            if start > now:
                if stop is not None:
                    if stop.wait(start - now):
                        raise Stopped()
                else:
                    time.sleep(start - now)
                now = time.monotonic()
            timeout = until - now if attempt_timeout is None else attempt_timeout(now, until)
            payload = body(now) if callable(body) else body
            sent = time.monotonic()
            replica = state.replica
            log.debug("%s: sending to %s", label, replica, extra={"zkfence_request_id": request_id,
                                                                  "zkfence_replica": replica.url})
            try:
                answer = exchange(replica, method, path, payload, self._headers, timeout, self._ssl)
            except Unreached as e:
                last = e
            except NoAnswer as e:
                last = e
                earliest_ambiguous = sent if earliest_ambiguous is None else min(earliest_ambiguous, sent)
            except BadAnswer as e:
                raise ServerError("%s: %s" % (label, e), code="BAD_ANSWER", key=key) from e
            else:
                if secret is not None:
                    answer = Answer(answer.status, _redacted(answer.body, secret), answer.retry_after)
                code = answer.body.get("error")
                if answer.status != 503 or code not in ("UNAVAILABLE", "SHUTTING_DOWN"):
                    self._answered(state)
                    return Outcome(answer, sent, earliest_ambiguous, failures + 1)
                if code == "UNAVAILABLE":
                    # ZooKeeper trouble: a write may have been applied before the answer was lost.
                    earliest_ambiguous = sent if earliest_ambiguous is None else min(earliest_ambiguous, sent)
                last = from_problem(answer.status, answer.body, what=replica.url, key=key)
                hint = retry_after_seconds(answer.body, answer.retry_after)
            pause = self._failed(state, failures, hint)
            failures += 1
            level = logging.INFO if getattr(last, "code", None) == "SHUTTING_DOWN" else logging.WARNING
            log.log(level, "%s failed: %s; retrying with the same request, %.0f ms left",
                    label, last, max(0.0, until - time.monotonic()) * 1000,
                    extra={"zkfence_request_id": request_id, "zkfence_replica": replica.url,
                           "zkfence_backoff": pause})


def _redacted(body: Dict[str, Any], secret: Secret) -> Dict[str, Any]:
    return {k: secret.redact(v) if isinstance(v, str) and k != "lockToken" else v for k, v in body.items()}

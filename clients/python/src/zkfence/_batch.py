"""Batch renewal (``POST /v1/leases/renew``): the rules the blocking client and ``zkfence.aio``
share. Each has its own loop over the chunks; each lease's answer is applied by the lease's own
``_renewal``, so a renewed or refused lease ends up exactly as a single renew would leave it."""

import json
from typing import Any, Dict, List, NamedTuple, Optional, Sequence

from ._errors import ServerError, ServiceError, Unavailable, ZkfenceError, from_problem
from ._http import Answer
from ._lease import LOST, RELEASED, LeaseCore, validity
from ._replicas import Outcome

#: The most leases the service renews in one call; a larger batch is sent in several.
MAX_LEASES_PER_CALL = 1000
#: The most bytes of leases in one request: the service refuses a body over 1 MiB (413) whole, and
#: 1,000 leases with long keys, owners and tokens (JSON escapes non-ASCII text here) can pass it.
MAX_BYTES_PER_CALL = 1_000_000
PATH = "/v1/leases/renew"

#: The status a single renew answers each refusal with (a batch gives only the code).
_STATUS = {"LOCK_EXPIRED": 409, "NOT_LOCK_OWNER": 403, "REQUEST_FINISHED": 409}


class RenewOutcome(NamedTuple):
    """What a batch renewal did to one lease (``Client.renew_all``), in the order given.

    ``renewed``: the service renewed it; ``lease.remaining()`` then counts from the request's send.
    ``expires_at``: the service's new end (epoch ms on the replica's clock, for display), or None.
    ``valid_for``: seconds the service answered the lease valid for, from the send, or None.
    ``error``: None if renewed; else the lease's refusal (``LeaseExpired``, ``NotLockOwner``: the
    lease is lost, as after a refused single renew), ``LeaseLost`` (it was lost before the call, so
    it was not sent), or the failure of its whole request (``Unavailable``, ...: the lease is as it
    was, valid until its local deadline). ``lost``: the lease is lost now.
    """

    lease: Any
    renewed: bool
    expires_at: Optional[int]
    valid_for: Optional[float]
    error: Optional[ZkfenceError]
    lost: bool


def _deadline(lease: LeaseCore) -> float:
    with lease._mutex:
        return lease._deadline


def _outcome(lease: LeaseCore, *, renewed: bool = False, expires_at: Optional[int] = None,
             valid_for: Optional[float] = None, error: Optional[ZkfenceError] = None) -> RenewOutcome:
    return RenewOutcome(lease, renewed, expires_at, valid_for, error, lease.state == LOST)


class Chunk:
    """Leases renewed by one request (retried as a single renew is): up to ``MAX_LEASES_PER_CALL``
    of them and ``MAX_BYTES_PER_CALL`` bytes."""

    def __init__(self, leases: List[LeaseCore]):
        self.leases = leases
        self.what = "batch renewal of %d lease%s" % (len(leases), "" if len(leases) == 1 else "s")
        # The call's bound: the latest local deadline among them. Each attempt carries only the
        # leases whose deadline has not passed (body), so no lease is sent past its own deadline,
        # as a single renew is not; one lease about to end does not cut the others' retries short.
        self.until = max(_deadline(lease) for lease in leases)
        self._sent: List[LeaseCore] = leases  # the leases of the last attempt (the one answered)

    def body(self, at: float) -> Dict[str, Any]:
        alive = [lease for lease in self.leases if _deadline(lease) > at]
        if not alive:  # at the bound's very edge: the last one still goes (the service decides)
            alive = [max(self.leases, key=_deadline)]
        self._sent = alive
        return {"leases": [_item(lease) for lease in alive]}

    @staticmethod
    def attempt_timeout(at: float, until: float) -> float:
        # As a single renew: each attempt gets half of what is left, so a replica that does not
        # answer (paused) leaves time to renew through another one.
        return max(0.001, (until - at) / 2)

    def failed(self, error: ServiceError) -> List[RenewOutcome]:
        """The whole request failed (no replica answered in time, a refusal of the call): every
        lease is as it was, valid until its local deadline."""
        return [_outcome(lease, error=error) for lease in self.leases]

    def answered(self, outcome: Outcome) -> List[RenewOutcome]:
        """Applies each lease's result through the lease's own renewal rules."""
        answer = outcome.answer
        if answer.status != 200:
            return self.failed(from_problem(answer.status, _redacted(answer.body, self._sent), what=self.what,
                                            key=None, retry_after_header=answer.retry_after))
        results = answer.body.get("results")
        if not isinstance(results, list) or len(results) != len(self._sent) or not all(
                isinstance(r, dict) for r in results):
            return self.failed(ServerError("%s: the answer's results are not one object per lease sent" % self.what,
                                           code="BAD_ANSWER"))
        by_lease = {id(lease): result for lease, result in zip(self._sent, results)}
        outcomes = []
        for lease in self.leases:
            result = by_lease.get(id(lease))
            if result is None:
                outcomes.append(_outcome(lease, error=Unavailable(
                    "renew of '%s': its local deadline passed before the %s was sent" % (lease.key, self.what),
                    code="UNAVAILABLE", key=lease.key)))
                continue
            outcomes.append(self._apply(lease, result, outcome))
        return outcomes

    def _apply(self, lease: LeaseCore, result: Dict[str, Any], outcome: Outcome) -> RenewOutcome:
        if result.get("lockKey") != lease.key:
            return _outcome(lease, error=ServerError("%s: a result names lock %r where %r was sent"
                                                     % (self.what, result.get("lockKey"), lease.key),
                                                     code="BAD_ANSWER", key=lease.key))
        error = result.get("error")
        if error is None:
            answer = Answer(200, result, None)
        else:
            error = error if isinstance(error, dict) else {}
            code = error.get("code") if isinstance(error.get("code"), str) else "INTERNAL"
            message = error.get("message") if isinstance(error.get("message"), str) else None
            body = {"error": code, "detail": lease._secret.redact(message) if message else None}
            answer = Answer(_STATUS.get(code, 500), body, None)
        refusal = lease._renewal(Outcome(answer, outcome.sent, outcome.earliest_ambiguous, outcome.attempts))
        if refusal is not None:
            return _outcome(lease, error=refusal)
        expires = result.get("expiresAt")
        return _outcome(lease, renewed=True, expires_at=expires if isinstance(expires, int) else None,
                        valid_for=validity(result, lease._ttl))


def _item(lease: LeaseCore) -> Dict[str, Any]:
    item = lease._renew_body()
    item["lockKey"] = lease.key
    return item


def _split(leases: List[LeaseCore]) -> List[List[LeaseCore]]:
    """The leases in order, in parts of at most ``MAX_LEASES_PER_CALL`` leases and
    ``MAX_BYTES_PER_CALL`` bytes of JSON (as ``_http`` sends it)."""
    parts: List[List[LeaseCore]] = []
    part: List[LeaseCore] = []
    size = 0
    for lease in leases:
        n = len(json.dumps(_item(lease)).encode("utf-8")) + 2  # and the ", " before it
        if part and (len(part) == MAX_LEASES_PER_CALL or size + n > MAX_BYTES_PER_CALL):
            parts.append(part)
            part, size = [], 0
        part.append(lease)
        size += n
    if part:
        parts.append(part)
    return parts


def _redacted(body: Dict[str, Any], leases: List[LeaseCore]) -> Dict[str, Any]:
    out = dict(body)
    for k, v in body.items():
        if isinstance(v, str):
            for lease in leases:
                v = lease._secret.redact(v)
            out[k] = v
    return out


class BatchRenewal:
    """One ``renew_all`` call: the leases checked (before anything is sent), those lost already
    answered at once, the rest split into chunks."""

    def __init__(self, client: Any, leases: Sequence[Any], lease_type: type):
        if isinstance(leases, (str, bytes, dict)) or not hasattr(leases, "__iter__"):
            raise TypeError("leases must be a list of this client's leases, got %r" % (leases,))
        leases = list(leases)
        if not leases:
            raise ValueError("leases must not be empty: give renew_all at least one lease")
        seen: Dict[int, int] = {}
        for i, lease in enumerate(leases):
            if not isinstance(lease, lease_type):
                raise TypeError("leases[%d] is not a %s.%s (from this client's acquire), got %r"
                                % (i, lease_type.__module__.replace("._lease", ""), lease_type.__name__, lease))
            if lease._replicas is not client._replicas:
                raise ValueError("leases[%d] (lock '%s') was acquired by another client (owner %r); renew_all "
                                 "renews this client's leases only" % (i, lease.key, lease.owner_id))
            if lease.state == RELEASED:
                raise ValueError("leases[%d] (lock '%s') was released; it cannot be renewed" % (i, lease.key))
            first = seen.setdefault(id(lease), i)
            if first != i:
                raise ValueError("leases[%d] is the same lease as leases[%d] (lock '%s'): give each lease once"
                                 % (i, first, lease.key))
        self.leases = leases
        self._done: Dict[int, RenewOutcome] = {}
        live = []
        for lease in leases:
            error = lease._lost_error()
            if error is not None:  # lost already (refused, or past its local deadline): a single renew raises too
                self._done[id(lease)] = _outcome(lease, error=error)
            else:
                live.append(lease)
        self.chunks = [Chunk(part) for part in _split(live)]

    def record(self, outcomes: List[RenewOutcome]) -> None:
        for o in outcomes:
            self._done[id(o.lease)] = o

    def outcomes(self) -> List[RenewOutcome]:
        return [self._done[id(lease)] for lease in self.leases]


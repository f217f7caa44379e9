"""The exceptions of the zkfence client: one hierarchy, one class per error code of the service.

Every exception the service answers with carries the stable ``code`` (the problem body's
``error``), the HTTP ``status``, the lock ``key`` and the server's ``detail``. The lockToken of a
lease is a bearer credential: it never appears in a message (a server detail that quotes it is
redacted before it gets here).
"""

from typing import Any, Dict, Optional


class ZkfenceError(Exception):
    """Base of every error of this package (lock service and fences alike)."""


class ServiceError(ZkfenceError):
    """The lock service refused a call, or could not be reached (``Unavailable``).

    Attributes:
        code: the service's stable error code (``LOCK_ALREADY_HELD``, ``UNAVAILABLE``, ...).
        status: the HTTP status, or None when no replica answered.
        key: the lock key of the call, or None.
        detail: the server's explanation (already redacted), or a local one.
    """

    def __init__(self, message: str, *, code: str, status: Optional[int] = None,
                 key: Optional[str] = None, detail: Optional[str] = None):
        super().__init__(message)
        self.code = code
        self.status = status
        self.key = key
        self.detail = detail


class LockHeld(ServiceError):
    """409 ``LOCK_ALREADY_HELD``: another owner holds the lock and the wait (if any) ran out.

    Attributes:
        owner: the current holder's ownerId, when the service named it.
        retry_after: seconds until the holder's lease ends at the latest, or None.
    """

    def __init__(self, message: str, *, owner: Optional[str], retry_after: Optional[float], **kw: Any):
        super().__init__(message, **kw)
        self.owner = owner
        self.retry_after = retry_after


class TooManyWaiters(ServiceError):
    """429 ``TOO_MANY_WAITERS``: the key's queue is full; nothing was queued.

    The client retries by itself (same requestId) while the caller's wait allows; this is raised
    when it does not. ``retry_after`` (seconds) says when the service expects room.
    """

    def __init__(self, message: str, *, retry_after: Optional[float], **kw: Any):
        super().__init__(message, **kw)
        self.retry_after = retry_after


class RequestFinished(ServiceError):
    """409 ``REQUEST_FINISHED``: the requestId names a request that already ended; never a grant.

    ``outcome`` is how it ended: ``RELEASED``, ``EXPIRED``, ``FORCE_RELEASED`` or ``GAVE_UP``.
    Acquire again with a new requestId (the client does so by itself for requestIds it made).
    """

    def __init__(self, message: str, *, outcome: Optional[str], **kw: Any):
        super().__init__(message, **kw)
        self.outcome = outcome


class LeaseExpired(ServiceError):
    """409 ``LOCK_EXPIRED``: the lease ended (expired, released or force-released); renew refused."""


class NotLockOwner(ServiceError):
    """403 ``NOT_LOCK_OWNER``: the lockToken is not this owner's for this lock."""


class Forbidden(ServiceError):
    """403 ``NAMESPACE_FORBIDDEN`` or ``ADMIN_REQUIRED``: the API key may not do this (see ``code``)."""


class Unauthorized(ServiceError):
    """401 ``UNAUTHORIZED``: no API key, or one the service does not know."""


class BadRequest(ServiceError):
    """400 ``BAD_REQUEST``: the service refused the request; ``detail`` names the field."""


class PayloadTooLarge(ServiceError):
    """413 ``PAYLOAD_TOO_LARGE``: the request body is over the service's limit."""


class Unavailable(ServiceError):
    """No replica granted the call within its time bound: connection errors, timeouts, or 503
    ``UNAVAILABLE`` / ``SHUTTING_DOWN`` on every attempt. The last failure is the ``__cause__``.

    The outcome of an acquire may be unknown: a grant made by an attempt whose answer was lost
    stays until its TTL runs out (or until an acquire with the same requestId picks it up).
    """


class ServerError(ServiceError):
    """500 ``INTERNAL``, an unknown error code, or an answer that is not the service's JSON."""


class LeaseLost(ZkfenceError):
    """The lease can no longer be trusted: stop writing with its fencing token.

    Raised by ``Lease.check()``. ``reason`` is the service's refusal that ended it
    (``LeaseExpired``, ``NotLockOwner``, ...) or None when its local deadline passed without a
    successful renewal (no replica answered in time).
    """

    def __init__(self, message: str, *, key: str, fencing_token: int, reason: Optional[BaseException]):
        super().__init__(message)
        self.key = key
        self.fencing_token = fencing_token
        self.reason = reason


class Cancelled(ZkfenceError):
    """The call was cancelled through its ``Cancellation`` (``zkfence.aio`` raises
    ``asyncio.CancelledError`` instead, as asyncio code expects). A waiting acquire's connection was
    closed, so the service dropped its queue entry."""


_BY_CODE = {
    "LOCK_ALREADY_HELD": LockHeld,
    "TOO_MANY_WAITERS": TooManyWaiters,
    "REQUEST_FINISHED": RequestFinished,
    "LOCK_EXPIRED": LeaseExpired,
    "NOT_LOCK_OWNER": NotLockOwner,
    "NAMESPACE_FORBIDDEN": Forbidden,
    "ADMIN_REQUIRED": Forbidden,
    "UNAUTHORIZED": Unauthorized,
    "BAD_REQUEST": BadRequest,
    "PAYLOAD_TOO_LARGE": PayloadTooLarge,
    "UNAVAILABLE": Unavailable,
    "SHUTTING_DOWN": Unavailable,
}


def retry_after_seconds(problem: Dict[str, Any], header: Optional[str]) -> Optional[float]:
    """The problem's ``retryAfterMillis``, else the ``Retry-After`` header (seconds), else None."""
    millis = problem.get("retryAfterMillis")
    if isinstance(millis, (int, float)) and not isinstance(millis, bool) and millis >= 0:
        return millis / 1000.0
    if header is not None:
        try:
            seconds = float(header.strip())
        except ValueError:
            return None  # an HTTP date: not sent by zkfence-server
        return seconds if seconds >= 0 else None
    return None


def from_problem(status: int, problem: Dict[str, Any], *, what: str, key: Optional[str],
                 retry_after_header: Optional[str] = None) -> ServiceError:
    """The typed exception for a problem+json answer. ``what`` names the call ("acquire of 'k'")."""
    code = problem.get("error")
    if not isinstance(code, str):
        code = "HTTP_%d" % status
    detail = problem.get("detail")
    detail = detail if isinstance(detail, str) else None
    message = "%s: %d %s%s" % (what, status, code, (": " + detail) if detail else "")
    kind = _BY_CODE.get(code)
    common = dict(code=code, status=status, key=key, detail=detail)
    if kind is LockHeld:
        owner = problem.get("currentOwner")
        return LockHeld(message, owner=owner if isinstance(owner, str) else None,
                        retry_after=retry_after_seconds(problem, retry_after_header), **common)
    if kind is TooManyWaiters:
        return TooManyWaiters(message, retry_after=retry_after_seconds(problem, retry_after_header), **common)
    if kind is RequestFinished:
        outcome = problem.get("outcome")
        return RequestFinished(message, outcome=outcome if isinstance(outcome, str) else None, **common)
    if kind is not None:
        return kind(message, **common)
    return ServerError(message, **common)


class FenceError(ZkfenceError):
    """A fence could not decide on a write (see the subclasses); ``resource_key`` and ``token``
    name the call. The driver's error, if any, is the ``__cause__``."""

    def __init__(self, message: str, *, resource_key: Optional[str], token: Optional[int]):
        super().__init__(message)
        self.resource_key = resource_key
        self.token = token


class StaleToken(FenceError):
    """The presented fencing token is lower than the highest one the resource has accepted: the
    lock was granted to a newer holder. Nothing of the unit of work was written (roll back a
    transaction you manage). Never retry with this token; acquire the lock again.

    Attributes: ``resource`` (the fence key), ``presented_token``, ``stored_token``.
    """

    def __init__(self, resource: str, presented_token: int, stored_token: int, table: str):
        super().__init__("stale fencing token for resource '%s': presented %d but %s has already accepted %d; "
                         "the lock was granted to a newer holder, nothing was written"
                         % (resource, presented_token, table, stored_token),
                         resource_key=resource, token=presented_token)
        self.resource = resource
        self.presented_token = presented_token
        self.stored_token = stored_token


class SerializationConflict(FenceError):
    """The database aborted the transaction because of a concurrent one (serialization failure,
    deadlock) or gave up waiting for a lock. Says nothing about the token: run the whole unit of
    work again, in a new transaction, with the same token."""


class FenceTableMissing(FenceError):
    """The fence table does not exist: run ``SqlFence.create_if_missing`` or the migration."""

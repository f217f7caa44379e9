"""zkfence: fenced locks from zkfence-server, and the fences that make them safe.

    import zkfence
    client = zkfence.Client(["http://zkfence-a:8080", "http://zkfence-b:8080"], api_key="...")
    with client.lock("inventory-service:sku:123", ttl=30, wait=10) as lease:
        lease.check()                       # still ours? (local, no round trip)
        write(..., lease.fencing_token)     # the resource rejects lower tokens

Standard library only; Python 3.9 or newer. See docs/clients.md.
"""

from ._client import Client, LockStatus
from ._errors import (BadRequest, FenceError, FenceTableMissing, Forbidden, LeaseExpired, LeaseLost, LockHeld,
                      NotLockOwner, PayloadTooLarge, RequestFinished, SerializationConflict, ServerError,
                      ServiceError, StaleToken, TooManyWaiters, Unauthorized, Unavailable, ZkfenceError)
from ._lease import Lease
from ._version import __version__
from .fence import SqlFence

__all__ = [
    "Client", "Lease", "LockStatus", "SqlFence",
    "ZkfenceError", "ServiceError", "LockHeld", "TooManyWaiters", "RequestFinished", "LeaseExpired", "NotLockOwner",
    "Forbidden", "Unauthorized", "BadRequest", "PayloadTooLarge", "Unavailable", "ServerError", "LeaseLost",
    "FenceError", "StaleToken", "SerializationConflict", "FenceTableMissing",
    "__version__",
]

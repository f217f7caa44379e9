"""zkfence: fenced locks from zkfence-server, and the fences that make them safe.

    import zkfence
    client = zkfence.Client(["http://zkfence-a:8080", "http://zkfence-b:8080"], api_key="...")
    with client.lock("inventory-service:sku:123", ttl=30, wait=10) as lease:
        lease.check()                       # still ours? (local, no round trip)
        write(..., lease.fencing_token)     # the resource rejects lower tokens

Standard library only; Python 3.9 or newer. ``zkfence.aio`` is the same client for asyncio.
See docs/clients.md.
"""

import logging

from ._batch import RenewOutcome
from ._cancel import Cancellation
from ._client import Client, LockStatus
from ._errors import (BadRequest, Cancelled, FenceError, FenceTableMissing, Forbidden, LeaseExpired, LeaseLost, LockHeld,
                      NotLockOwner, PayloadTooLarge, RequestFinished, SerializationConflict, ServerError,
                      ServiceError, StaleToken, TooManyWaiters, Unauthorized, Unavailable, ZkfenceError)
from ._lease import Lease
from ._version import __version__
from .fence import SqlFence

# A library logs to its own logger and leaves the handlers to the application: without this, a
# failed acquire's retry warnings would go through Python's last-resort handler to standard error.
logging.getLogger("zkfence").addHandler(logging.NullHandler())

__all__ = [
    "Client", "Lease", "LockStatus", "RenewOutcome", "SqlFence", "Cancellation", "Cancelled",
    "ZkfenceError", "ServiceError", "LockHeld", "TooManyWaiters", "RequestFinished", "LeaseExpired", "NotLockOwner",
    "Forbidden", "Unauthorized", "BadRequest", "PayloadTooLarge", "Unavailable", "ServerError", "LeaseLost",
    "FenceError", "StaleToken", "SerializationConflict", "FenceTableMissing",
    "__version__",
]

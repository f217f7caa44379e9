"""A handle that cancels a blocking call from another thread (as kazoo's ``Lock.cancel()``)."""

import socket
import threading
from contextlib import contextmanager
from typing import Any, Iterator, Optional, Set


class Cancellation:
    """Cancels the blocking calls it is given to, from any thread::

        cancel = zkfence.Cancellation()
        threading.Timer(5, cancel.cancel).start()      # or a signal handler, a UI button, ...
        lease = client.acquire("conf:k", wait=30, cancel=cancel)   # raises zkfence.Cancelled

    ``cancel()`` closes the connection of the request in flight, so a waiting acquire leaves the
    service's queue at once (the replica sees its caller go and removes the entry), and ends the
    call's back-off sleeps; the call raises ``Cancelled``. An acquire granted before it noticed
    the cancellation releases that lease first. A cancellation is final; use a new one per call
    (or share one to cancel several calls at once).
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._mutex = threading.Lock()
        self._sockets: Set[Any] = set()
        self.reason: Optional[str] = None

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self, reason: str = "cancelled by the caller") -> None:
        """Cancels every call using this handle now and later. Idempotent, thread-safe."""
        with self._mutex:
            if self._event.is_set():
                return
            self.reason = reason
            self._event.set()
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def wait(self, seconds: float) -> bool:
        """Sleeps up to ``seconds``; True (at once) if cancelled."""
        return self._event.wait(max(0.0, seconds))

    @contextmanager
    def watching(self, sock: Any) -> Iterator[None]:
        """While inside, ``cancel()`` shuts ``sock`` down (a blocked read on it returns)."""
        with self._mutex:
            self._sockets.add(sock)
            cancelled = self._event.is_set()
        if cancelled:
            _shut(sock)
        try:
            yield
        finally:
            with self._mutex:
                self._sockets.discard(sock)

    def __repr__(self) -> str:
        return "<zkfence.Cancellation %s>" % ("cancelled: %s" % self.reason if self.cancelled else "pending")


def _shut(sock: Any) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)  # FIN to the replica; a read blocked in another thread returns
    except OSError:
        pass  # closed meanwhile: nothing left to end

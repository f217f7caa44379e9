"""One HTTP exchange with one replica, bounded by a total time, and the secret it must not leak.

A new connection per exchange: a waiting acquire that the client gives up on closes its
connection, which makes the replica drop the queue entry at once (docs/server.md, "Disconnects").
"""

import http.client
import json
import socket
import ssl
import urllib.parse
from contextlib import nullcontext
from typing import Any, Dict, NamedTuple, Optional

from ._cancel import Cancellation
from ._clock import now


class Secret:
    """A value that must not be shown: its repr and str are a placeholder."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def redact(self, text: str) -> str:
        """``text`` with every occurrence of the value replaced by a placeholder."""
        return text.replace(self._value, "<lockToken>") if self._value else text

    def __repr__(self) -> str:
        return "<lockToken>"

    __str__ = __repr__

    def __reduce__(self):  # pickling would be another way to print it
        raise TypeError("a lockToken cannot be pickled")


class Replica:
    """A replica's base URL, parsed once: ``http(s)://host[:port][/prefix]``."""

    def __init__(self, url: str):
        if not isinstance(url, str):
            raise TypeError("replicas must be URL strings, got %r" % (url,))
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("replica URL %r must be http://host[:port] or https://host[:port]" % url)
        if parts.query or parts.fragment or parts.username or parts.password:
            raise ValueError("replica URL %r must not carry a query, fragment or user info "
                             "(give the API key as api_key)" % url)
        self.url = url.rstrip("/")
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.https else 80)
        self.prefix = parts.path.rstrip("/")

    def __repr__(self) -> str:
        return self.url


class Answer(NamedTuple):
    status: int
    body: Dict[str, Any]
    retry_after: Optional[str]  # the Retry-After header, if any


class Unreached(Exception):
    """No connection could be made: the request was never sent."""


class NoAnswer(Exception):
    """The request may have reached the replica, but no complete answer came back."""


class BadAnswer(Exception):
    """The replica answered something that is not a JSON object."""


def exchange(replica: Replica, method: str, path: str, body: Optional[Dict[str, Any]],
             headers: Dict[str, str], timeout: float,
             ssl_context: Optional[ssl.SSLContext], cancel: Optional[Cancellation] = None) -> Answer:
    """Sends one request and reads its JSON answer within ``timeout`` seconds in all (each
    socket operation gets what is left of it). ``cancel`` shuts the connection down from another
    thread (the call then fails with ``NoAnswer``; the caller tells a cancellation apart)."""
    end = now() + timeout

    def left() -> float:
        remaining = end - now()
        if remaining <= 0:
            raise socket.timeout("no answer within %.3f s" % timeout)
        return remaining

    if replica.https:
        conn = http.client.HTTPSConnection(replica.host, replica.port, timeout=max(timeout, 0.001),
                                           context=ssl_context)
    else:
        conn = http.client.HTTPConnection(replica.host, replica.port, timeout=max(timeout, 0.001))
    try:
        try:
            conn.connect()
        except (OSError, ssl.SSLError) as e:
            raise Unreached("%s: %s" % (replica.url, e)) from e
        watching = cancel.watching(conn.sock) if cancel is not None else nullcontext()
        with watching:
            try:
                data = None if body is None else json.dumps(body).encode("utf-8")
                all_headers = dict(headers)
                if data is not None:
                    all_headers["Content-Type"] = "application/json"
                conn.sock.settimeout(left())
                conn.request(method, replica.prefix + path, body=data, headers=all_headers)
                conn.sock.settimeout(left())
                response = conn.getresponse()
                if conn.sock is not None:
                    conn.sock.settimeout(left())
                raw = response.read()
            except (OSError, http.client.HTTPException) as e:
                raise NoAnswer("%s: %s" % (replica.url, e or type(e).__name__)) from e
        return parse_answer(replica, response.status, raw, response.getheader("Retry-After"))
    finally:
        conn.close()


def parse_answer(replica: Replica, status: int, raw: bytes, retry_after: Optional[str]) -> Answer:
    """The answer of a replica: its JSON object body, or ``NoAnswer`` / ``BadAnswer``."""
    try:
        parsed = json.loads(raw.decode("utf-8")) if raw else {}
    except (UnicodeDecodeError, ValueError):
        parsed = None
    if not isinstance(parsed, dict):
        if status in (502, 503, 504):
            # Not the service's own answer: a proxy or load balancer in front of a replica that
            # did not answer it. The request may have reached the replica.
            raise NoAnswer("%s: HTTP %d from something in front of the replica" % (replica.url, status))
        raise BadAnswer("%s answered HTTP %d with %d bytes that are not a JSON object"
                        % (replica.url, status, len(raw)))
    return Answer(status, parsed, retry_after)

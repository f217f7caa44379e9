"""An HTTP server inside the test that answers as each scenario scripts it and records what it got."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Union


class Request(NamedTuple):
    method: str
    path: str
    body: Dict[str, Any]
    at: float  # monotonic arrival time
    size: int = 0  # the body's bytes


class Reply(NamedTuple):
    status: int
    body: Union[Dict[str, Any], bytes]
    headers: Dict[str, str] = {}
    delay: float = 0.0


#: Script answers: close the connection without answering; never answer (until the server closes).
HANG_UP = "hang up"
NEVER = "never"

Script = Callable[[Request, int], Union[Reply, str]]


def problem(status: int, code: str, detail: str = "scripted", **extra: Any) -> Reply:
    return Reply(status, dict(type="urn:zkfence:error:" + code, title=code.lower(), status=status, detail=detail,
                              error=code, **extra))


def grant(key: str = "conf:k", token: str = "lock-token-0123456789abcdef", fencing: int = 42,
          valid_for: Optional[int] = None, delay: float = 0.0) -> Reply:
    body: Dict[str, Any] = {"lockKey": key, "lockToken": token, "fencingToken": fencing, "ownerId": "o",
                            "expiresAt": int(time.time() * 1000) + 30000}
    if valid_for is not None:
        body["validForMillis"] = valid_for
    return Reply(200, body, {}, delay)


class ScriptedReplica:
    """``script(request, n)`` answers the n-th request (from 0) of its kind (the path's last word)."""

    def __init__(self, script: Script):
        self.requests: List[Request] = []
        self.answered: List[float] = []  # monotonic time each answer was written
        self._counts: Dict[str, int] = {}
        self._closing = threading.Event()
        self._mutex = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._serve()

            def do_POST(self) -> None:
                self._serve()

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else {}
                request = Request(self.command, self.path, body, time.monotonic(), len(raw))
                kind = self.path.rstrip("/").rsplit("/", 1)[-1]
                with outer._mutex:
                    outer.requests.append(request)
                    n = outer._counts.get(kind, 0)
                    outer._counts[kind] = n + 1
                reply = script(request, n)
                if reply == NEVER:
                    outer._closing.wait()
                    self.close_connection = True
                    return
                if reply == HANG_UP:
                    self.close_connection = True
                    return
                if reply.delay:
                    time.sleep(reply.delay)  # the scripted replica's own processing time
                data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json" if reply.status < 400
                                 else "application/problem+json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
                with outer._mutex:
                    outer.answered.append(time.monotonic())

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.url = "http://127.0.0.1:%d" % self._server.server_address[1]

    def of(self, kind: str) -> List[Request]:
        with self._mutex:
            return [r for r in self.requests if r.path.rstrip("/").endswith("/" + kind)]

    def close(self) -> None:
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()

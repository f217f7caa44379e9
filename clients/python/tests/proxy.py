"""clients/testing/lossy-proxy, driven from the tests: a TCP proxy in front of one replica that
loses the answer to a chosen request (the replica acted; the client got no answer)."""

import subprocess
import sys
import threading
from typing import List

from cluster import _orphan_guard
from support import REPO, await_true


class LossyProxy:
    def __init__(self, upstream_url: str):
        hostport = upstream_url.split("://", 1)[1]
        self.proc = subprocess.Popen(_orphan_guard() + [sys.executable, str(REPO / "clients" / "testing" / "lossy-proxy"),
                                                        hostport],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines: List[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        port = await_true("the proxy listening", lambda: next((l.split()[1] for l in self.lines
                                                              if l.startswith("listening ")), None))
        self.url = "http://127.0.0.1:%s" % port

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    def drop(self, kind: str) -> None:
        """The next request of ``kind`` reaches the replica; its answer is lost."""
        self.proc.stdin.write("drop %s\n" % kind)
        self.proc.stdin.flush()
        self.await_line("armed " + kind)

    def await_line(self, line: str, timeout: float = 60) -> None:
        await_true("the proxy says %r (it said %s)" % (line, self.lines[-5:]), lambda: line in self.lines,
                   timeout=timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc.stdout.close()

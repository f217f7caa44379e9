#!/usr/bin/env python3
"""A client of zkfence-server in Python's standard library only.

acquire() retries with the same requestId (a retried acquire never queues twice), a background
renewer renews at a third of the TTL and raises a flag the moment a renew fails (stop writing then:
the lease may be gone), release() gives the lock back. Pass fencing_token into every write to the
protected resource; the resource rejects lower ones.

    python3 zkfence_client.py --base http://localhost:8080 --key inventory:sku-42 --owner pod-7 --hold-ms 1500
"""
import argparse
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid


# The server's bearer API key (none when it runs with --no-auth): --api-key or $ZKFENCE_API_KEY.
API_KEY = os.environ.get("ZKFENCE_API_KEY")


def call(method, url, body=None, timeout=35):
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if API_KEY:
        headers["Authorization"] = "Bearer " + API_KEY
    req = urllib.request.Request(url, method=method, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


class Lease:
    def __init__(self, base, key, owner, grant, ttl_ms, renew=True):
        self.url = base + "/v1/locks/" + urllib.parse.quote(key, safe="")
        self.owner = owner
        self.lock_token = grant["lockToken"]
        self.fencing_token = grant["fencingToken"]
        self.ttl_ms = ttl_ms
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._renewer = threading.Thread(target=self._renew_loop if renew else lambda: None, daemon=True)
        self._renewer.start()

    def _renew_loop(self):
        while not self._stop.wait(self.ttl_ms / 3000.0):
            status, body = call("POST", self.url + "/renew",
                                {"ownerId": self.owner, "lockToken": self.lock_token, "ttlMillis": self.ttl_ms})
            if status != 200:
                print("renew failed (%s %s): stop writing" % (status, body.get("error")), file=sys.stderr)
                self.lost.set()
                return

    def release(self):
        self._stop.set()
        self._renewer.join()
        return call("POST", self.url + "/release", {"ownerId": self.owner, "lockToken": self.lock_token})


def acquire(base, key, owner, ttl_ms, wait_ms=10000, attempts=3, renew=True):
    """The lease, or None if the lock stayed held. Retries on transport errors with the same requestId."""
    request_id = str(uuid.uuid4())
    url = base + "/v1/locks/" + urllib.parse.quote(key, safe="") + "/acquire"
    body = {"ownerId": owner, "ttlMillis": ttl_ms, "wait": True, "waitMillis": wait_ms, "requestId": request_id}
    for attempt in range(attempts):
        try:
            status, reply = call("POST", url, body)
        except OSError as e:  # dropped mid-acquire: the same requestId gets back a grant made meanwhile
            print("acquire attempt %d failed (%s); retrying with the same requestId" % (attempt + 1, e), file=sys.stderr)
            time.sleep(0.2 * (attempt + 1))
            continue
        if status == 200:
            return Lease(base, key, owner, reply, ttl_ms, renew)
        if status == 409:
            return None
        raise RuntimeError("acquire failed: %s %s" % (status, reply))
    raise RuntimeError("acquire failed after %d attempts" % attempts)


def main():
    p = argparse.ArgumentParser(description="Take a zkfence-server lock, hold it while renewing, release it.")
    p.add_argument("--base", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--owner", required=True)
    p.add_argument("--ttl-ms", type=int, default=3000)
    p.add_argument("--hold-ms", type=int, default=1000)
    p.add_argument("--api-key", help="bearer API key (default: $ZKFENCE_API_KEY)")
    p.add_argument("--no-renew", action="store_true",
                   help="behave like a paused client: never renew, so the lease expires during the hold")
    a = p.parse_args()
    global API_KEY
    API_KEY = a.api_key or API_KEY
    lease = acquire(a.base, a.key, a.owner, a.ttl_ms, renew=not a.no_renew)
    if lease is None:
        print("lock %s is held by someone else" % a.key)
        return 2
    print("acquired %s fencingToken=%d" % (a.key, lease.fencing_token), flush=True)
    deadline = time.time() + a.hold_ms / 1000.0
    while time.time() < deadline and not lease.lost.is_set():
        time.sleep(0.05)  # the work, fenced with lease.fencing_token
    print("writing %s with fencingToken=%d" % (a.key, lease.fencing_token), flush=True)
    status, body = lease.release()
    print("released %s (%s, wasHeld=%s)" % (a.key, body.get("status"), body.get("wasHeld")))
    return 1 if lease.lost.is_set() else 0


if __name__ == "__main__":
    sys.exit(main())

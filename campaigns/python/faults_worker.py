#!/usr/bin/python3
"""A Python worker of the lock service's fault campaign (docs/faults.md, "The lock service").

It reaches zkfence-server only over HTTP (the standard library's http.client), spreading its calls
over the replicas as a load balancer would: each request's acquire goes to one replica, its renewals
to the next, its release to the one after. Under each lease it does the fenced read-modify-write of
the Java workers on PostgreSQL through the Python package's fence (zkfence.SqlFence from
clients/python: fencing-jdbc's fence row, zkfence_fence, advanced to the lease's fencing token in
the same transaction as the counter and the history row). It logs every call, every request's end, every lease it believed it held and every
write as JSON lines, in the same format as the Java worker (ServiceLog.java).

Needs Debian's /usr/bin/python3 with python3-psycopg2 (the campaign installs it when missing). The
HTTP calls are the package's job in a pod; here they are written out in the class Service, so that
the campaign decides which replica each call reaches (the package fails over on its own).

    /usr/bin/python3 faults_worker.py --name py0 --replicas r0=http://127.0.0.1:8080,... \
        --pg-port 5432 --locks 3 --threads 2 --seed 7 --log py0.jsonl
"""
import argparse
import http.client
import json
import os
import random
import signal
import sys
import threading
import time
import urllib.parse
import uuid

import psycopg2

# The Python client package from this repository (clients/python), as a pod would install it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python", "src"))
import zkfence  # noqa: E402

TTL = 5000
SHORT_TTL = 2000
# Longer than twice what a grant from the queue may be answered valid for without a write on the
# replicas' 15 s sessions: confirmed first, or queued as a lease on a lock guessed free.
LONG_TTL = 21000
CALL_TIMEOUT = 2.5
KEY_PREFIX = "faults:res-"
RETRYABLE = (0, 429, 499, 503)


def now_ms():
    return int(time.time() * 1000)


def ttl_of(one_in_ten):
    """One lease in five asks the short TTL, one in ten the long one, the rest the usual."""
    return SHORT_TTL if one_in_ten < 2 else LONG_TTL if one_in_ten == 2 else TTL


def base36(n):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while n:
        n, r = divmod(n, 36)
        out = digits[r] + out
    return out or "0"


class Service:
    """The lock service's three calls; a transport failure is an answer with status 0."""

    def __init__(self, urls):
        self.urls = urls
        self.local = threading.local()

    def _connection(self, replica, timeout):
        conns = self.local.__dict__.setdefault("conns", {})
        conn = conns.get(replica)
        if conn is None:
            parsed = urllib.parse.urlparse(self.urls[replica])
            conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=timeout)
            conns[replica] = conn
        conn.timeout = timeout
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        return conn

    def _drop(self, replica):
        conn = self.local.__dict__.setdefault("conns", {}).pop(replica, None)
        if conn is not None:
            conn.close()

    def post(self, replica, key, call, body, timeout):
        path = "/v1/locks/" + urllib.parse.quote(key, safe="") + "/" + call
        try:
            conn = self._connection(replica, timeout)
            conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
            status = resp.status
            if resp.getheader("Connection", "").lower() == "close":
                self._drop(replica)
        except (OSError, http.client.HTTPException) as e:
            self._drop(replica)
            code = "timeout" if isinstance(e, TimeoutError) or "timed out" in str(e) else "io"
            return {"status": 0, "code": code, "detail": repr(e)}
        try:
            answer = json.loads(data)
        except ValueError:
            answer = {}
        if not isinstance(answer, dict):
            answer = {}
        answer["status"] = status
        if status != 200:
            answer["code"] = answer.get("error", "NO_CODE")
        return answer

    def acquire(self, replica, key, owner, request_id, ttl, waiting, wait_ms):
        body = {"ownerId": owner, "ttlMillis": ttl, "requestId": request_id}
        if waiting:
            body["wait"] = True
            body["waitMillis"] = wait_ms
        return self.post(replica, key, "acquire", body, CALL_TIMEOUT + wait_ms / 1000.0)

    def renew(self, replica, key, owner, lock_token, ttl, timeout):
        return self.post(replica, key, "renew", {"ownerId": owner, "lockToken": lock_token, "ttlMillis": ttl}, timeout)

    def release(self, replica, key, owner, lock_token):
        return self.post(replica, key, "release", {"ownerId": owner, "lockToken": lock_token}, CALL_TIMEOUT)


class Worker:
    def __init__(self, args):
        self.name = args.name
        self.inc = "%d.%s" % (os.getpid(), base36(now_ms()))
        self.replica_names = []
        urls = []
        for item in args.replicas.split(","):
            name, url = item.split("=", 1)
            self.replica_names.append(name)
            urls.append(url)
        self.service = Service(urls)
        self.pg_port = args.pg_port
        self.locks = args.locks
        self.log = open(args.log, "a", buffering=1)
        self.log_lock = threading.Lock()
        self.counter_lock = threading.Lock()
        self.requests = 0
        self.attempts = 0
        self.stopping = threading.Event()

    def record(self, kind, fields):
        fields["t"] = kind
        line = json.dumps(fields)
        with self.log_lock:
            self.log.write(line + "\n")

    def next_number(self, which):
        with self.counter_lock:
            if which == "request":
                self.requests += 1
                return self.requests
            self.attempts += 1
            return self.attempts

    def log_call(self, thread, req, op, replica, hedge, sent_at, a, lease=0):
        """One call and its answer; lease: for a renew or a release, the fencing token of its lease."""
        self.record("call", {
            "worker": self.name, "inc": self.inc, "thread": thread, "owner": req["owner"],
            "request": req["id"], "key": req["key"], "op": op, "replica": self.replica_names[replica],
            "hedge": hedge, "sentAt": sent_at, "doneAt": now_ms(), "status": a["status"], "code": a.get("code"),
            "fencingToken": a.get("fencingToken", 0) or 0, "expiresAt": a.get("expiresAt", 0) or 0,
            "validFor": a["validForMillis"] if a.get("validForMillis") is not None else -1,
            "currentOwner": a.get("currentOwner"), "wasHeld": a.get("wasHeld"), "outcome": a.get("outcome"),
            # A problem's detail may name queue entries, whose names carry lock tokens: not logged.
            "detail": a.get("detail") if a["status"] == 0 else None,
            "lease": lease,
        })

    def end(self, req, result, token):
        self.record("req", {
            "worker": self.name, "inc": self.inc, "owner": req["owner"], "request": req["id"], "key": req["key"],
            "ttl": req["ttl"], "waiting": req["waiting"], "waitMillis": req["wait_ms"], "startAt": req["start"],
            "endAt": now_ms(), "result": result, "fencingToken": token,
        })

    def loop(self, thread, rnd, conn):
        while not self.stopping.is_set():
            lock = rnd.randrange(self.locks)
            waiting = rnd.randrange(4) != 0
            wait_ms = 0 if not waiting else (10000 + rnd.randrange(15000) if rnd.randrange(10) == 0
                                             else 1000 + rnd.randrange(5000))
            req = {
                "thread": thread, "owner": "%s.%s.%d" % (self.name, self.inc, self.next_number("request")),
                "id": str(uuid.uuid4()), "key": KEY_PREFIX + str(lock),
                "ttl": ttl_of(rnd.randrange(10)), "waiting": waiting, "wait_ms": wait_ms,
                "start": now_ms(),
            }
            granted = self.acquire(req, rnd)
            if granted is not None:
                self.hold(req, granted, "res-%d" % lock, rnd, conn)
            time.sleep((10 + rnd.randrange(100)) / 1000.0)

    def acquire(self, req, rnd):
        budget_end = time.monotonic() + (req["wait_ms"] + 30000) / 1000.0
        replica = rnd.randrange(len(self.replica_names))
        backoff = 0.1
        while True:
            sent_at = now_ms()
            sent = time.monotonic()
            a = self.service.acquire(replica, req["key"], req["owner"], req["id"], req["ttl"], req["waiting"],
                                     req["wait_ms"])
            self.log_call(req["thread"], req, "acquire", replica, False, sent_at, a)
            if a["status"] == 200:
                self.end(req, "granted", a.get("fencingToken", 0))
                return a, replica, sent
            if a["status"] not in RETRYABLE:
                code = a.get("code")
                self.end(req, "held" if code == "LOCK_ALREADY_HELD" else "finished" if code == "REQUEST_FINISHED"
                         else "error", 0)
                return None
            if self.stopping.is_set() or time.monotonic() > budget_end:
                self.end(req, "stopped" if self.stopping.is_set() else "abandoned", 0)
                return None
            pause = min(2.0, max(0.1, a.get("retryAfterMillis", 0) / 1000.0)) if a["status"] == 429 else backoff
            time.sleep(pause + rnd.random() / 10)
            backoff = min(1.0, backoff * 2)
            replica = (replica + 1) % len(self.replica_names)

    @staticmethod
    def validity(a, ttl):
        v = a.get("validForMillis")
        return (v if v is not None else ttl) / 1000.0

    def hold(self, req, granted, resource, rnd, conn):
        a, replica, sent = granted
        start = now_ms()
        lock_token = a["lockToken"]
        token = a["fencingToken"]
        deadline = sent + self.validity(a, req["ttl"])
        renew_at = sent + self.validity(a, req["ttl"]) / 3
        hold_until = time.monotonic() + (req["ttl"] * 1.2 + rnd.randrange(req["ttl"] * 3 // 5) if rnd.randrange(10) == 0
                                         else rnd.randrange(300)) / 1000.0
        writes = 1 + rnd.randrange(3)
        renew_replica = (replica + 1) % len(self.replica_names)
        end = "released"
        while True:
            now = time.monotonic()
            if now >= deadline:
                end = "deadline"
                break
            if self.stopping.is_set() and writes == 0:
                break
            if now >= renew_at and (writes > 0 or now < hold_until):
                renew_sent = time.monotonic()
                r = self.renew(req, lock_token, token, renew_replica, deadline)
                if r["status"] == 200:
                    deadline = renew_sent + self.validity(r, req["ttl"])
                    renew_at = renew_sent + self.validity(r, req["ttl"]) / 3
                    continue
                end = "deadline" if r["status"] == 0 else "lost"
                break
            if writes > 0:
                self.write(req, resource, token, time.monotonic() < deadline, conn)
                writes -= 1
                time.sleep((20 + rnd.randrange(80)) / 1000.0)
            elif now >= hold_until:
                break
            else:
                time.sleep(max(0.001, min(min(renew_at, hold_until, deadline) - now, 0.2)))
        to = now_ms() - int((time.monotonic() - deadline) * 1000) if end == "deadline" else now_ms()
        if self.stopping.is_set() and end == "released":
            end = "stopped"
        self.record("hold", {
            "worker": self.name, "inc": self.inc, "owner": req["owner"], "request": req["id"], "key": req["key"],
            "fencingToken": token, "fromAt": start, "toAt": to, "end": end,
        })
        release_replica = (replica + 2) % len(self.replica_names)
        for i in range(len(self.replica_names)):
            rep = (release_replica + i) % len(self.replica_names)
            sent_at = now_ms()
            r = self.service.release(rep, req["key"], req["owner"], lock_token)
            self.log_call(req["thread"], req, "release", rep, False, sent_at, r, token)
            if r["status"] not in RETRYABLE:
                return

    def renew(self, req, lock_token, token, replica, deadline):
        rep = replica
        while True:
            sent_at = now_ms()
            left = deadline - time.monotonic()
            r = self.service.renew(rep, req["key"], req["owner"], lock_token, req["ttl"],
                                   max(0.001, min(CALL_TIMEOUT, left)))
            self.log_call(req["thread"], req, "renew", rep, False, sent_at, r, token)
            if r["status"] not in RETRYABLE or time.monotonic() >= deadline:
                return r
            rep = (rep + 1) % len(self.replica_names)

    def write(self, req, resource, token, in_deadline, conn):
        attempt = "%s-%s-%d" % (self.name, self.inc, self.next_number("attempt"))
        start = now_ms()
        try:
            outcome = self.fenced_write(conn["db"], resource, token, attempt, req["owner"])
        except psycopg2.Error as e:
            outcome = "error: %s: %s" % (type(e).__name__, str(e).strip())
            if conn["db"].closed:
                conn["db"] = self.connect()
        self.record("write", {
            "attempt": attempt, "worker": self.name, "inc": self.inc, "thread": req["thread"],
            "owner": req["owner"], "key": req["key"], "resource": resource, "fencingToken": token,
            "startAt": start, "endAt": now_ms(), "jdbc": outcome, "inDeadline": in_deadline,
        })

    def connect(self):
        return psycopg2.connect(host="127.0.0.1", port=self.pg_port, user="postgres", dbname="postgres")

    @staticmethod
    def fenced_write(conn, resource, token, attempt, holder):
        """The Python package's fence (zkfence.SqlFence: fencing-jdbc's table and statements), then
        the work, in one transaction."""
        def work(c):
            cur = c.cursor()
            cur.execute("update fault_counter set value = value + 1 where resource = %s returning value",
                        (resource,))
            value = cur.fetchone()[0]
            cur.execute("insert into fault_history (resource, token, attempt, value_after) values (%s, %s, %s, %s)",
                        (resource, token, attempt, value))

        try:
            zkfence.SqlFence("postgres", holder=holder).in_transaction(conn, resource, token, work)
            return "accepted"
        except zkfence.StaleToken:
            return "stale-rejected"
        except zkfence.SerializationConflict:
            return "retryable"


def main():
    p = argparse.ArgumentParser(description="A Python worker of the lock service's fault campaign.")
    p.add_argument("--name", required=True)
    p.add_argument("--replicas", required=True, help="r0=http://host:port,r1=...")
    p.add_argument("--pg-port", type=int, required=True)
    p.add_argument("--locks", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log", required=True)
    args = p.parse_args()
    worker = Worker(args)
    signal.signal(signal.SIGTERM, lambda signum, frame: worker.stopping.set())
    threads = []
    for t in range(args.threads):
        rnd = random.Random(args.seed * 31 + t + os.getpid())
        th = threading.Thread(target=worker.loop, args=("t%d" % t, rnd, {"db": worker.connect()}), daemon=True)
        th.start()
        threads.append(th)
    while any(th.is_alive() for th in threads):
        for th in threads:
            th.join(0.2)
    worker.record("bye", {"worker": worker.name, "inc": worker.inc, "at": now_ms()})
    return 0


if __name__ == "__main__":
    sys.exit(main())

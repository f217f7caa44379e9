"""The client process of 'paused-client-check-fails-and-write-rejected': acquires, writes through the
PostgreSQL fence, says so, then waits for a line on standard input (the test pauses it with
SIGSTOP meanwhile, past its lease, and resumes it); then checks its lease and writes again with its
old token, and prints what happened, as JSON.

    python3 paused_client.py KEY TABLE PGPORT REPLICA...      (ZKFENCE_API_KEY in the environment)
"""

import json
import os
import sys

import psycopg2

import zkfence

key, table, pg_port, replicas = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
db = psycopg2.connect(host="127.0.0.1", port=pg_port, user="zkfence", dbname="postgres")
fence = zkfence.SqlFence()
client = zkfence.Client(replicas, api_key=os.environ["ZKFENCE_API_KEY"])


def write(token: int, value: str) -> None:
    fence.in_transaction(db, key, token, lambda c: c.cursor().execute(
        "INSERT INTO %s (k, v) VALUES (%%s, %%s) ON CONFLICT (k) DO UPDATE SET v = excluded.v" % table, (key, value)))


lease = client.acquire(key, ttl=2, wait=0)
write(lease.fencing_token, "P-1")
print(json.dumps({"held": lease.fencing_token}), flush=True)
sys.stdin.readline()  # paused (SIGSTOP) before this line comes, resumed (SIGCONT) after
result = {}
try:
    lease.check()
    result["check"] = "passed"
except zkfence.LeaseLost as e:
    result["check"] = "LeaseLost: %s" % e
try:
    write(lease.fencing_token, "P-2")  # written anyway: the fence must refuse it
    result["write"] = "accepted"
except zkfence.StaleToken as e:
    result["write"] = "StaleToken"
    result["stored"] = e.stored_token
print(json.dumps(result), flush=True)

#!/usr/bin/env python3
"""Take a zkfence-server lock, hold it while it renews, give it back: a command line over the
zkfence package (clients/python; docs/clients.md), for scripts, the fault campaign and
PythonClientTest. Run from a clone it uses the package's source; installed, the package.

    python3 zkfence_client.py --base http://localhost:8080 [--base http://localhost:8081] \\
        --key inventory:sku-42 --owner pod-7 --hold-ms 1500

Prints "acquired KEY fencingToken=N", "writing KEY with fencingToken=N" and
"released KEY (RELEASED, wasHeld=True|False)"; exits 0, 1 if the lease was lost while held,
2 if the lock stayed held by someone else.
"""
import argparse
import os
import pathlib
import sys
import time

try:
    import zkfence
except ImportError:  # run from a clone: the package's source beside this sample
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "clients" / "python" / "src"))
    import zkfence


def main():
    p = argparse.ArgumentParser(description="Take a zkfence-server lock, hold it while renewing, release it.")
    p.add_argument("--base", required=True, action="append", help="a replica's URL (repeat for several)")
    p.add_argument("--key", required=True)
    p.add_argument("--owner", required=True)
    p.add_argument("--ttl-ms", type=int, default=3000)
    p.add_argument("--wait-ms", type=int, default=10000)
    p.add_argument("--hold-ms", type=int, default=1000)
    p.add_argument("--api-key", help="bearer API key (default: $ZKFENCE_API_KEY)")
    p.add_argument("--no-renew", action="store_true",
                   help="behave like a paused client: never renew, so the lease expires during the hold")
    a = p.parse_args()
    client = zkfence.Client(a.base, api_key=a.api_key or os.environ.get("ZKFENCE_API_KEY"), owner_id=a.owner)
    try:
        lease = client.acquire(a.key, ttl=a.ttl_ms / 1000.0, wait=a.wait_ms / 1000.0, auto_renew=not a.no_renew)
    except zkfence.LockHeld as e:
        print("lock %s is held by %s" % (a.key, e.owner or "someone else"))
        return 2
    print("acquired %s fencingToken=%d" % (a.key, lease.fencing_token), flush=True)
    if a.no_renew:
        time.sleep(a.hold_ms / 1000.0)  # a paused pod: it neither renews nor notices that its lease ended
    else:
        lease.lost.wait(a.hold_ms / 1000.0)  # the work, fenced with lease.fencing_token; stops if the lease is lost
    print("writing %s with fencingToken=%d" % (a.key, lease.fencing_token), flush=True)
    lost = not lease.valid
    was_held = lease.release()
    print("released %s (RELEASED, wasHeld=%s)" % (a.key, was_held))
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())

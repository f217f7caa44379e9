"""Wait for a lock, but stop waiting when the process is asked to stop (SIGTERM, Ctrl-C): the
waiting acquire is cancelled, and the service drops its place in the queue at once.

    ZKFENCE_API_KEY=... python3 cancel.py http://zkfence-a:8080 http://zkfence-b:8080
"""
import os
import signal
import sys

import zkfence

client = zkfence.Client(sys.argv[1:] or ["http://localhost:8080"], api_key=os.environ.get("ZKFENCE_API_KEY"))
cancel = zkfence.Cancellation()
for sig in (signal.SIGTERM, signal.SIGINT):
    signal.signal(sig, lambda signum, frame: cancel.cancel("stopping on signal %d" % signum))

try:
    with client.lock("inventory-service:nightly-report", ttl=30, wait=300, cancel=cancel) as lease:
        print("running the report with fencing token", lease.fencing_token, flush=True)
except zkfence.Cancelled as e:
    print("gave up waiting:", e)

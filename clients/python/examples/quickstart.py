"""Take a lock from zkfence-server, write with its fencing token through the fence, give it back.

    ZKFENCE_API_KEY=... python3 quickstart.py http://zkfence-a:8080 http://zkfence-b:8080
"""
import os
import sqlite3
import sys

import zkfence

client = zkfence.Client(sys.argv[1:] or ["http://localhost:8080"], api_key=os.environ.get("ZKFENCE_API_KEY"))
db = sqlite3.connect("inventory.db")  # any DB-API 2.0 connection; psycopg2's for PostgreSQL
fence = zkfence.SqlFence()
fence.create_if_missing(db)
db.execute("CREATE TABLE IF NOT EXISTS stock (sku TEXT PRIMARY KEY, quantity INTEGER)")


def reserve(conn):  # the protected writes, in the fence's transaction
    conn.execute("INSERT INTO stock VALUES ('123', 41) ON CONFLICT (sku) DO UPDATE SET quantity = quantity - 1")


with client.lock("inventory-service:sku:123", ttl=30, wait=10) as lease:
    lease.check()  # still ours? local, no round trip
    fence.in_transaction(db, "inventory-service:sku:123", lease.fencing_token, reserve)  # rejects lower tokens
    print("reserved sku 123 with fencing token", lease.fencing_token)

"""The quickstart with asyncio: take a lock, write with its fencing token through the fence, give it back.

    ZKFENCE_API_KEY=... python3 quickstart_asyncio.py http://zkfence-a:8080 http://zkfence-b:8080
"""
import asyncio
import os
import sqlite3
import sys

import zkfence
import zkfence.aio


def reserve(db, token):  # the fence and the protected writes, one transaction (DB-API is blocking: run in a thread)
    zkfence.SqlFence().in_transaction(db, "inventory-service:sku:123", token, lambda conn: conn.execute(
        "INSERT INTO stock VALUES ('123', 41) ON CONFLICT (sku) DO UPDATE SET quantity = quantity - 1"))


async def main():
    client = zkfence.aio.Client(sys.argv[1:] or ["http://localhost:8080"], api_key=os.environ.get("ZKFENCE_API_KEY"))
    db = sqlite3.connect("inventory.db", check_same_thread=False)
    zkfence.SqlFence().create_if_missing(db)
    db.execute("CREATE TABLE IF NOT EXISTS stock (sku TEXT PRIMARY KEY, quantity INTEGER)")
    async with client.lock("inventory-service:sku:123", ttl=30, wait=10) as lease:  # renewed by a task
        lease.check()  # still ours? local, no round trip
        await asyncio.to_thread(reserve, db, lease.fencing_token)  # the fence rejects lower tokens
        print("reserved sku 123 with fencing token", lease.fencing_token)


asyncio.run(main())

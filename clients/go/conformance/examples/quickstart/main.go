// Take a lock from zkfence-server, write with its fencing token through the fence, give it back.
//
//	ZKFENCE_API_KEY=... DATABASE_URL=postgres://... go run . http://zkfence-a:8080 http://zkfence-b:8080
package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"

	_ "github.com/lib/pq" // any database/sql driver for PostgreSQL
	zkfence "github.com/zkfence/zkfence/clients/go"
)

func main() {
	ctx := context.Background()
	replicas := os.Args[1:]
	if len(replicas) == 0 {
		replicas = []string{"http://localhost:8080"}
	}
	client, err := zkfence.NewClient(replicas, zkfence.Options{APIKey: os.Getenv("ZKFENCE_API_KEY")})
	if err != nil {
		log.Fatal(err)
	}
	db, err := sql.Open("postgres", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	fence, _ := zkfence.NewSQLFence(zkfence.FenceOptions{})
	if err := fence.CreateIfMissing(ctx, db); err != nil {
		log.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS stock (sku TEXT PRIMARY KEY, quantity INTEGER)"); err != nil {
		log.Fatal(err)
	}
	key := "inventory-service:sku:123"
	err = client.WithLock(ctx, key, zkfence.LockOptions{}, func(ctx context.Context, lease *zkfence.Lease) error {
		if err := lease.Check(); err != nil { // still ours? local, no round trip
			return err
		}
		err := fence.InTx(ctx, db, key, lease.FencingToken(), func(tx *sql.Tx) error { // rejects lower tokens
			_, err := tx.ExecContext(ctx, "INSERT INTO stock VALUES ('123', 41) ON CONFLICT (sku) DO UPDATE SET quantity = stock.quantity - 1")
			return err
		})
		if err == nil {
			fmt.Println("reserved sku 123 with fencing token", lease.FencingToken())
		}
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
}

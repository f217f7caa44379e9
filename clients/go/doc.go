// Package zkfence is the Go client of zkfence-server, the fenced lock service: leases from several
// replicas with failover on the same requestId, background renewal (or Client.RenewAll: many
// leases in one batch request), a local deadline after which a lease is no longer trusted (even
// when no replica can be reached), typed errors, and SQLFence, fencing-jdbc's fence table and rule
// on a *sql.Tx. Standard library only; every call takes a context.Context, and cancelling it
// cancels the call (a waiting acquire's connection closes, so the service drops its queue entry at
// once).
//
//	client, err := zkfence.NewClient([]string{"http://zkfence-a:8080", "http://zkfence-b:8080"},
//		zkfence.Options{APIKey: os.Getenv("ZKFENCE_API_KEY")})
//	err = client.WithLock(ctx, "inventory-service:sku:123", zkfence.LockOptions{},
//		func(ctx context.Context, lease *zkfence.Lease) error {
//			return fence.InTx(ctx, db, "inventory-service:sku:123", lease.FencingToken(), reserve)
//		})
//
// The guide is docs/clients.md in the zkfence repository.
package zkfence

package conformance

import (
	"context"
	"database/sql"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	zkfence "github.com/zkfence/zkfence/clients/go"
)

func (e *env) fence() *zkfence.SQLFence {
	f, _ := zkfence.NewSQLFence(zkfence.FenceOptions{})
	if err := f.CreateIfMissing(background, e.pg.db); err != nil {
		e.t.Fatal(err)
	}
	e.key = "inventory:sku:" + randomHex(5)
	return f
}

func (e *env) current(f *zkfence.SQLFence) int64 {
	token, ok, err := f.CurrentToken(background, e.pg.db, e.key)
	if err != nil {
		e.t.Fatal(err)
	}
	if !ok {
		return 0
	}
	return token
}

func staleOf(err error) *zkfence.FenceError {
	var fe *zkfence.FenceError
	if errors.As(err, &fe) && fe.Kind == zkfence.ErrStaleToken {
		return fe
	}
	return nil
}

var _ = scenario("fence-first-write-creates-row", func(e *env) {
	f := e.fence()
	_, table := e.fenceTable()
	if err := write(e.pg.db, f, table, e.key, 7, "v7"); err != nil {
		e.t.Fatal(err)
	}
	if e.current(f) != 7 || value(e.pg.db, table, e.key) != "v7" {
		e.t.Fatal("not written")
	}
})

var _ = scenario("fence-equal-and-higher-accepted", func(e *env) {
	f := e.fence()
	for _, token := range []int64{5, 5, 9} {
		if err := f.Claim(background, e.pg.db, e.key, token); err != nil {
			e.t.Fatal(err)
		}
	}
	if e.current(f) != 9 {
		e.t.Fatal(e.current(f))
	}
})

var _ = scenario("fence-lower-rejected-nothing-written", func(e *env) {
	f := e.fence()
	_, table := e.fenceTable()
	if err := write(e.pg.db, f, table, e.key, 9, "new"); err != nil {
		e.t.Fatal(err)
	}
	ran := false
	err := f.InTx(background, e.pg.db, e.key, 4, func(tx *sql.Tx) error { ran = true; return nil })
	fe := staleOf(err)
	if fe == nil || fe.Resource != e.key || fe.Presented != 4 || fe.Stored != 9 || !strings.Contains(err.Error(), "presented 4") || ran {
		e.t.Fatalf("%v (work ran: %v)", err, ran)
	}
	if value(e.pg.db, table, e.key) != "new" || e.current(f) != 9 {
		e.t.Fatal("changed")
	}
})

var _ = scenario("fence-newer-holder-waits-for-older-transaction", func(e *env) {
	f := e.fence()
	if err := f.Claim(background, e.pg.db, e.key, 1); err != nil {
		e.t.Fatal(err)
	}
	older, err := e.pg.db.BeginTx(background, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := f.Advance(background, older, e.key, 5); err != nil {
		e.t.Fatal(err)
	}
	conn, _ := e.pg.db.Conn(background)
	defer conn.Close()
	var pid int
	_ = conn.QueryRowContext(background, "SELECT pg_backend_pid()").Scan(&pid)
	done := make(chan error, 1)
	go func() {
		tx, err := conn.BeginTx(background, nil)
		if err == nil {
			if err = f.Advance(background, tx, e.key, 6); err == nil {
				err = tx.Commit()
			}
		}
		done <- err
	}()
	awaitTrue(e.t, "the newer holder waits for the row lock", func() bool {
		var wait sql.NullString
		_ = e.pg.db.QueryRow("SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", pid).Scan(&wait)
		return wait.String == "Lock"
	})
	select {
	case err := <-done:
		e.t.Fatalf("finished while the older transaction was open: %v", err)
	default:
	}
	_ = older.Commit()
	if err := <-done; err != nil {
		e.t.Fatal(err)
	}
	if fe := staleOf(f.Claim(background, e.pg.db, e.key, 5)); fe == nil || fe.Stored != 6 {
		e.t.Fatal("the older holder's second advance was not stale")
	}
})

var _ = scenario("fence-first-write-race", func(e *env) {
	f := e.fence()
	const n = 8
	table := "race_" + randomHex(5)
	if _, err := e.pg.db.Exec("CREATE TABLE " + table + " (id BIGSERIAL PRIMARY KEY, token BIGINT NOT NULL)"); err != nil {
		e.t.Fatal(err)
	}
	tokens := rand.Perm(n)
	var start, wg sync.WaitGroup
	start.Add(1)
	outcomes := make([]error, n+1)
	for _, t := range tokens {
		token := int64(t + 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			start.Wait()
			for attempt := 0; attempt < 20; attempt++ {
				err := f.InTx(background, e.pg.db, e.key, token, func(tx *sql.Tx) error {
					_, err := tx.Exec("INSERT INTO "+table+" (token) VALUES ($1)", token)
					return err
				})
				if errors.Is(err, zkfence.ErrSerializationConflict) {
					continue // retry the whole unit of work with the same token
				}
				outcomes[token] = err
				return
			}
			outcomes[token] = errors.New("still conflicting after 20 tries")
		}()
	}
	start.Done()
	wg.Wait()
	if outcomes[n] != nil {
		e.t.Fatalf("the highest token: %v", outcomes[n])
	}
	accepted := map[int64]bool{}
	for token := int64(1); token <= n; token++ {
		if outcomes[token] == nil {
			accepted[token] = true
		} else if fe := staleOf(outcomes[token]); fe == nil || fe.Stored <= token {
			e.t.Errorf("token %d: %v", token, outcomes[token])
		}
	}
	if e.current(f) != n {
		e.t.Fatal(e.current(f))
	}
	var rows int
	_ = e.pg.db.QueryRow("SELECT COUNT(*) FROM zkfence_fence WHERE resource_key = $1", e.key).Scan(&rows)
	if rows != 1 {
		e.t.Fatalf("%d fence rows", rows)
	}
	res, _ := e.pg.db.Query("SELECT token FROM " + table + " ORDER BY id")
	var written []int64
	for res.Next() {
		var t int64
		_ = res.Scan(&t)
		written = append(written, t)
	}
	_ = res.Close()
	if !sort.SliceIsSorted(written, func(i, j int) bool { return written[i] < written[j] }) || len(written) != len(accepted) {
		e.t.Fatalf("written in commit order %v, accepted %v", written, accepted)
	}
	for _, t := range written {
		if !accepted[t] {
			e.t.Fatalf("written %v, accepted %v", written, accepted)
		}
	}
})

var _ = scenario("fence-autocommit-refused", func(e *env) {
	f := e.fence()
	_, table := e.fenceTable()
	// There is no auto-commit fencing in Go: Advance takes a *sql.Tx; a nil one is refused.
	err := f.Advance(background, nil, e.key, 3)
	if err == nil || !strings.Contains(err.Error(), "auto-commit") || e.current(f) != 0 {
		e.t.Fatal(err)
	}
	if err := write(e.pg.db, f, table, e.key, 3, "v3"); err != nil || e.current(f) != 3 || value(e.pg.db, table, e.key) != "v3" {
		e.t.Fatal(err)
	}
})

var _ = scenario("fence-bad-input-refused", func(e *env) {
	f := e.fence()
	for _, c := range []struct {
		key   string
		token int64
		rule  string
	}{{"  ", 1, "blank"}, {strings.Repeat("k", 256), 1, "limit is 255"}, {"a\x00b", 1, "NUL"}, {"a\xed\xa0\x80b", 1, "Unicode"}, {"k-ok", 0, "from 1"}, {"k-ok", -1, "from 1"}} {
		tx, _ := e.pg.db.Begin()
		err := f.Advance(background, tx, c.key, c.token)
		_ = tx.Rollback()
		if err == nil || !strings.Contains(err.Error(), c.rule) {
			e.t.Errorf("%q %d: %v, want %s", c.key, c.token, err, c.rule)
		}
	}
	if _, ok, _ := f.CurrentToken(background, e.pg.db, "k-ok"); ok {
		e.t.Fatal("a row was written")
	}
})

var _ = scenario("fence-table-missing", func(e *env) {
	table := "missing_fence_" + randomHex(4)
	f, _ := zkfence.NewSQLFence(zkfence.FenceOptions{Table: table})
	err := f.Claim(context.Background(), e.pg.db, "inventory:sku:1", 1)
	if !errors.Is(err, zkfence.ErrFenceTableMissing) || !strings.Contains(err.Error(), table) {
		e.t.Fatal(err)
	}
})

var _ = scenario("fence-sql-is-fencing-jdbcs", func(e *env) {
	jdbc := filepath.Join(repo, "fencing-jdbc", "src", "main", "resources", "io", "zkfence", "jdbc", "postgres")
	ours := zkfence.PostgresStatementsForTests()
	var names []string
	for name := range ours {
		names = append(names, name)
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, []string{"fence_advance", "fence_insert", "fence_locked_read", "fence_read", "zkfence_fence"}) {
		e.t.Fatal(names)
	}
	for _, name := range names {
		data, _ := os.ReadFile(filepath.Join(jdbc, name+".sql"))
		if string(data) != ours[name] {
			e.t.Errorf("%s differs from fencing-jdbc's file", name)
		}
	}
})

var _ = time.Second

package zkfence

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// SQLFence keeps fencing-jdbc's fence table on PostgreSQL through database/sql (any driver:
// lib/pq, pgx's stdlib): one row per resource key holds the highest fencing token accepted for
// it. Advance runs, in the caller's *sql.Tx and before its writes, one conditional UPDATE
// (fence_token <= mine); a lower token is a *FenceError of kind ErrStaleToken and the transaction
// must roll back. The statements are fencing-jdbc's own.
type SQLFence struct {
	table  string
	holder string
	sql    map[string]statement
}

// FenceOptions configure a SQLFence. Zero values take the defaults.
type FenceOptions struct {
	Table  string // the fence table (default zkfence_fence; a plain identifier, optionally schema-qualified)
	Holder string // written to the holder column for people reading the table (default pid@host)
}

type statement struct {
	sql   string
	binds []string
}

const (
	maxKeyLength = 255 // UTF-16 code units, as fencing-jdbc counts them (its VARCHAR(255) key column)
	maxRounds    = 3
)

var (
	identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)
	tableWord  = regexp.MustCompile(`\bzkfence_fence\b`)
	conflict   = map[string]bool{"40001": true, "40P01": true, "55P03": true} // serialization, deadlock, lock_timeout
	missing    = map[string]bool{"42P01": true, "3F000": true}                // undefined table, schema
	concurrent = map[string]bool{"42P07": true, "42710": true, "23505": true} // created by another process meanwhile
)

// NewSQLFence makes a fence; the table's name is checked here.
func NewSQLFence(opts FenceOptions) (*SQLFence, error) {
	table := opts.Table
	if table == "" {
		table = "zkfence_fence"
	}
	parts := strings.Split(table, ".")
	if len(parts) > 2 {
		return nil, fmt.Errorf("zkfence: fence table %q must be a plain SQL identifier, optionally schema-qualified", table)
	}
	for _, p := range parts {
		if !identifier.MatchString(p) {
			return nil, fmt.Errorf("zkfence: fence table %q must be a plain SQL identifier (letters, digits, _; not starting with a digit; at most 63 characters), optionally schema-qualified", table)
		}
	}
	holder := opts.Holder
	if holder == "" {
		host, _ := os.Hostname()
		holder = fmt.Sprintf("%d@%s", os.Getpid(), host)
	}
	f := &SQLFence{table: table, holder: holder, sql: map[string]statement{}}
	for name, text := range postgresSQL {
		var binds []string
		var lines []string
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "-- binds:") {
				for _, b := range strings.Split(strings.TrimPrefix(line, "-- binds:"), ",") {
					binds = append(binds, strings.TrimSpace(b))
				}
			}
			if !strings.HasPrefix(strings.TrimSpace(line), "--") {
				lines = append(lines, line)
			}
		}
		query := tableWord.ReplaceAllString(strings.TrimSpace(strings.Join(lines, "\n")), table)
		n := 0
		query = regexp.MustCompile(`\?`).ReplaceAllStringFunc(query, func(string) string { n++; return "$" + strconv.Itoa(n) })
		if n != len(binds) {
			panic(fmt.Sprintf("zkfence: %s.sql has %d placeholders and %d binds", name, n, len(binds)))
		}
		f.sql[name] = statement{sql: query, binds: binds}
	}
	return f, nil
}

// Table is the fence table's name.
func (f *SQLFence) Table() string { return f.table }

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (f *SQLFence) args(name string, values map[string]any) []any {
	s := f.sql[name]
	out := make([]any, len(s.binds))
	for i, b := range s.binds {
		out[i] = values[b]
	}
	return out
}

// CreateIfMissing creates the fence table (fencing-jdbc's DDL) if it does not exist; safe when
// several processes start together.
func (f *SQLFence) CreateIfMissing(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, f.sql["zkfence_fence"].sql); err != nil {
		if !concurrent[sqlState(err)] {
			return f.translate(err, "", 0, "creating the fence table")
		}
		if _, err := db.ExecContext(ctx, "SELECT 1 FROM "+f.table+" WHERE 1 = 0"); err != nil {
			return f.translate(err, "", 0, "creating the fence table")
		}
	}
	return nil
}

// Advance advances the fence of key to token in tx, the first statement before the writes it
// protects; the key's row stays locked until tx ends. Neither commits nor rolls back. Errors: a
// *FenceError (ErrStaleToken: roll back; ErrSerializationConflict: retry the whole unit of work
// with the same token; ErrFenceTableMissing), or a usage error for a bad key or token, or a nil
// tx (there is no fencing in auto-commit mode: the advance would not be atomic with the writes).
func (f *SQLFence) Advance(ctx context.Context, tx *sql.Tx, key string, token int64) error {
	if err := checkFence(key, token); err != nil {
		return err
	}
	if tx == nil {
		return fmt.Errorf("zkfence: no transaction (a nil *sql.Tx): advancing the fence of resource '%s' with token %d in auto-commit mode would not be atomic with the writes it protects; begin one, or use SQLFence.InTx", key, token)
	}
	if err := f.advance(ctx, tx, key, token); err != nil {
		var fe *FenceError
		if errors.As(err, &fe) {
			return err
		}
		return f.translate(err, key, token, "advancing the fence")
	}
	return nil
}

// InTx runs BEGIN, Advance, work(tx) and COMMIT on db; it rolls back and returns the error on any
// failure (ErrStaleToken: work never ran).
func (f *SQLFence) InTx(ctx context.Context, db *sql.DB, key string, token int64, work func(tx *sql.Tx) error) error {
	if err := checkFence(key, token); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return f.translate(err, key, token, "beginning the fenced transaction")
	}
	if err := f.Advance(ctx, tx, key, token); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := work(tx); err != nil {
		_ = tx.Rollback()
		if conflict[sqlState(err)] {
			return &FenceError{Kind: ErrSerializationConflict, Resource: key, Presented: token, Cause: err,
				Message: fmt.Sprintf("the unit of work fenced for resource '%s' with token %d hit a serialization conflict (%v); retry it whole in a new transaction with the same token", key, token, err)}
		}
		return err
	}
	if err := tx.Commit(); err != nil {
		return f.translate(err, key, token, "committing the fenced transaction")
	}
	return nil
}

// Claim advances the fence in a short transaction of its own, right after the lock is granted.
func (f *SQLFence) Claim(ctx context.Context, db *sql.DB, key string, token int64) error {
	return f.InTx(ctx, db, key, token, func(*sql.Tx) error { return nil })
}

// CurrentToken is the highest token accepted for key (ok false: none yet), read without locks
// (db: a *sql.DB, *sql.Tx or *sql.Conn).
func (f *SQLFence) CurrentToken(ctx context.Context, db execer, key string) (token int64, ok bool, err error) {
	if err := checkFence(key, 1); err != nil {
		return 0, false, err
	}
	err = db.QueryRowContext(ctx, f.sql["fence_read"].sql, f.args("fence_read", map[string]any{"key": key})...).Scan(&token)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, f.translate(err, key, 0, "reading the fence")
	}
	return token, true, nil
}

// advance is fencing-jdbc's FenceAdvance.
func (f *SQLFence) advance(ctx context.Context, tx *sql.Tx, key string, token int64) error {
	values := map[string]any{"key": key, "token": token, "holder": f.holder}
	lostBefore := false
	for round := 0; round < maxRounds; round++ {
		res, err := tx.ExecContext(ctx, f.sql["fence_advance"].sql, f.args("fence_advance", values)...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
		var stored int64
		err = tx.QueryRowContext(ctx, f.sql["fence_locked_read"].sql, f.args("fence_locked_read", values)...).Scan(&stored)
		if err == nil {
			if stored > token {
				return &FenceError{Kind: ErrStaleToken, Resource: key, Presented: token, Stored: stored,
					Message: fmt.Sprintf("stale fencing token for resource '%s': presented %d but %s has already accepted %d; the lock was granted to a newer holder, nothing was written", key, token, f.table, stored)}
			}
			// The row admits the token and is locked by us now: created after our UPDATE looked.
			_, err = tx.ExecContext(ctx, f.sql["fence_advance"].sql, f.args("fence_advance", values)...)
			return err
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// ON CONFLICT DO NOTHING: no row inserted means another transaction created it first.
		res, err = tx.ExecContext(ctx, f.sql["fence_insert"].sql, f.args("fence_insert", values)...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil
		}
		if lostBefore {
			return &FenceError{Kind: ErrSerializationConflict, Resource: key, Presented: token,
				Message: fmt.Sprintf("advancing the fence for resource '%s' with token %d on %s hit a serialization conflict with a concurrent transaction (the key's row was created after this transaction's snapshot); retry the whole unit of work in a new transaction with the same token", key, token, f.table)}
		}
		lostBefore = true // lost the race to create the row: it exists now, go round again
	}
	return &FenceError{Kind: ErrFence, Resource: key, Presented: token,
		Message: fmt.Sprintf("could not advance the fence for resource '%s' to token %d on %s in %d rounds: its row kept disappearing between statements", key, token, f.table, maxRounds)}
}

func (f *SQLFence) translate(err error, key string, token int64, doing string) error {
	where := fmt.Sprintf("%s on %s", doing, f.table)
	if key != "" {
		where = fmt.Sprintf("%s for resource '%s' with token %d on %s", doing, key, token, f.table)
	}
	state := sqlState(err)
	switch {
	case conflict[state]:
		return &FenceError{Kind: ErrSerializationConflict, Resource: key, Presented: token, Cause: err,
			Message: fmt.Sprintf("%s hit a serialization conflict or lock wait limit (SQLSTATE %s: %v); retry the whole unit of work in a new transaction with the same token", where, state, err)}
	case missing[state]:
		return &FenceError{Kind: ErrFenceTableMissing, Resource: key, Presented: token, Cause: err,
			Message: fmt.Sprintf("%s: the fence table %s does not exist (%v); run SQLFence.CreateIfMissing or the migration", where, f.table, err)}
	}
	return &FenceError{Kind: ErrFence, Resource: key, Presented: token, Cause: err, Message: fmt.Sprintf("%s failed: %v", where, err)}
}

// sqlState is the SQLSTATE of a driver's error (lib/pq's *pq.Error and pgx's *pgconn.PgError
// both have SQLState()).
func sqlState(err error) string {
	var coded interface{ SQLState() string }
	if errors.As(err, &coded) {
		return coded.SQLState()
	}
	return ""
}

func checkFence(key string, token int64) error {
	if strings.TrimSpace(key) == "" {
		return fmt.Errorf("zkfence: resource key must not be blank, got %q", key)
	}
	if !utf8.ValidString(key) {
		return fmt.Errorf("zkfence: resource key %q is not well-formed Unicode (an unpaired surrogate or bad UTF-8)", key)
	}
	if units := len(utf16.Encode([]rune(key))); units > maxKeyLength {
		return fmt.Errorf("zkfence: resource key is %d characters long (UTF-16 code units); the limit is %d", units, maxKeyLength)
	}
	if i := strings.IndexByte(key, 0); i >= 0 {
		return fmt.Errorf("zkfence: resource key contains a NUL character (at byte %d); keys must not contain U+0000", i)
	}
	for _, r := range key {
		if r >= 0xD800 && r <= 0xDFFF {
			return fmt.Errorf("zkfence: resource key is not well-formed Unicode: unpaired surrogate U+%04X", r)
		}
	}
	if token < 1 {
		return fmt.Errorf("zkfence: fencing token for resource '%s' must be from 1 to 2^63-1, got %d", key, token)
	}
	return nil
}

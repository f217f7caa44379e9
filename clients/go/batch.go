package zkfence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// MaxLeasesPerCall is the most leases the service renews in one batch call (POST /v1/leases/renew);
// RenewAll sends a larger batch in several (and splits a batch whose JSON would pass 1,000,000
// bytes too: the service refuses a body over 1 MiB).
const MaxLeasesPerCall = 1000

// maxBytesPerCall is the most bytes of leases in one request: the service refuses a body over
// 1 MiB (413) whole, and 1,000 leases with long keys, owners and tokens can pass it.
const maxBytesPerCall = 1_000_000

const batchPath = "/v1/leases/renew"

// batchStatus is the status a single renew answers each refusal with (a batch gives only the code).
var batchStatus = map[string]int{"LOCK_EXPIRED": 409, "NOT_LOCK_OWNER": 403, "REQUEST_FINISHED": 409}

// RenewOutcome is what RenewAll did to one lease, in the order given.
//
// Renewed: the service renewed it; Lease.Remaining then counts from the request's send. ExpiresAt
// is the service's new end (on the replica's clock, for display) and ValidFor how long the service
// answered it valid for, from the send. Err is nil if renewed; else the lease's refusal (a
// *ServiceError of ErrLeaseExpired or ErrNotLockOwner: the lease is lost, as after a refused
// Renew), the *LeaseLostError of a lease lost before the call (not sent), or the failure of its
// whole request (ErrUnavailable, ...: the lease is as it was, valid until its local deadline).
// Lost: the lease is lost now.
type RenewOutcome struct {
	Lease     *Lease
	Renewed   bool
	ExpiresAt time.Time
	ValidFor  time.Duration
	Err       error
	Lost      bool
}

func renewOutcome(l *Lease, err error) RenewOutcome {
	return RenewOutcome{Lease: l, Err: err, Lost: l.State() == StateLost}
}

// RenewAll renews several leases of this client with the service's batch renewal
// (POST /v1/leases/renew), up to MaxLeasesPerCall per request, and returns one RenewOutcome per
// lease in the order given. Each request fails over and is retried as a single renew is, within
// the leases' local deadlines (a lease whose deadline passes is left out of the next attempt).
//
// A renewed lease's local deadline moves exactly as Lease.Renew moves it; a lease the service
// refused (ErrLeaseExpired, ErrNotLockOwner) is lost as after a refused Renew (Done closed, OnLost
// called), while the others stay renewed. A lease lost already is not sent. A lease's outcome is
// never RenewAll's error: the error is for bad input (an empty slice, a nil lease, another
// client's lease, a released lease, a lease twice), returned before anything is sent, and for
// ctx's end. The background renewal of each lease goes on as before (per lease).
func (c *Client) RenewAll(ctx context.Context, leases []*Lease) ([]RenewOutcome, error) {
	if len(leases) == 0 {
		return nil, errors.New("zkfence: RenewAll needs at least one lease, got none")
	}
	seen := make(map[*Lease]int, len(leases))
	for i, l := range leases {
		switch {
		case l == nil:
			return nil, fmt.Errorf("zkfence: RenewAll: leases[%d] is nil", i)
		case l.client != c:
			return nil, fmt.Errorf("zkfence: RenewAll: leases[%d] (lock '%s') was acquired by another client (owner %q); RenewAll renews this client's leases only", i, l.key, l.client.ownerID)
		case l.State() == StateReleased:
			return nil, fmt.Errorf("zkfence: RenewAll: leases[%d] (lock '%s') was released; it cannot be renewed", i, l.key)
		}
		if first, twice := seen[l]; twice {
			return nil, fmt.Errorf("zkfence: RenewAll: leases[%d] is the same lease as leases[%d] (lock '%s'): give each lease once", i, first, l.key)
		}
		seen[l] = i
	}
	out := make([]RenewOutcome, len(leases))
	var live []int // indexes of the leases to send
	for i, l := range leases {
		if err := l.Check(); err != nil {
			out[i] = renewOutcome(l, err) // lost already: Renew returns that error too
			continue
		}
		live = append(live, i)
	}
	for _, part := range split(leases, live) {
		chunk := make([]*Lease, len(part))
		for k, i := range part {
			chunk[k] = leases[i]
		}
		outcomes, err := c.renewChunk(ctx, chunk)
		if err != nil {
			return nil, err
		}
		for k, i := range part {
			out[i] = outcomes[k]
		}
	}
	return out, nil
}

// split cuts the indexes live, in order, into parts of at most MaxLeasesPerCall leases and
// maxBytesPerCall bytes of JSON.
func split(leases []*Lease, live []int) [][]int {
	var parts [][]int
	var part []int
	size := 0
	for _, i := range live {
		data, _ := json.Marshal(leases[i].batchItem())
		n := len(data) + 1 // and the comma before it
		if len(part) > 0 && (len(part) == MaxLeasesPerCall || size+n > maxBytesPerCall) {
			parts = append(parts, part)
			part, size = nil, 0
		}
		part = append(part, i)
		size += n
	}
	if len(part) > 0 {
		parts = append(parts, part)
	}
	return parts
}

// batchItem is the lease as a batch renewal sends it: a renewal's fields and its lockKey.
func (l *Lease) batchItem() map[string]any {
	item := l.renewBody()
	item["lockKey"] = l.key
	return item
}

func (l *Lease) currentDeadline() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.deadline
}

// renewChunk sends one request of at most MaxLeasesPerCall leases; its error is ctx's end only.
func (c *Client) renewChunk(ctx context.Context, chunk []*Lease) ([]RenewOutcome, error) {
	what := fmt.Sprintf("batch renewal of %d leases", len(chunk))
	if len(chunk) == 1 {
		what = "batch renewal of 1 lease"
	}
	// The call's bound: the latest local deadline among them. Each attempt carries only the leases
	// whose deadline has not passed, so no lease is sent past its own deadline (as a single renew is
	// not), and one lease about to end does not cut the others' retries short.
	var until time.Duration
	for _, l := range chunk {
		if d := l.currentDeadline(); d > until {
			until = d
		}
	}
	sent := chunk
	body := func(at time.Duration) any {
		sent = nil
		latest := chunk[0]
		for _, l := range chunk {
			d := l.currentDeadline()
			if d > at {
				sent = append(sent, l)
			}
			if d > latest.currentDeadline() {
				latest = l
			}
		}
		if len(sent) == 0 { // at the bound's very edge: the last one still goes (the service decides)
			sent = []*Lease{latest}
		}
		items := make([]map[string]any, len(sent))
		for i, l := range sent {
			items[i] = l.batchItem()
		}
		return map[string]any{"leases": items}
	}
	failed := func(err error) []RenewOutcome {
		out := make([]RenewOutcome, len(chunk))
		for i, l := range chunk {
			out[i] = renewOutcome(l, err)
		}
		return out
	}
	out, err := c.call(ctx, "POST", batchPath, body, callSpec{until: until, what: what, attemptTimeout: halfLeft})
	if err != nil {
		var se *ServiceError
		if errors.As(err, &se) {
			return failed(err), nil // no replica answered in time, a bad answer
		}
		return nil, err // ctx's end
	}
	if out.ans.status != 200 {
		for _, l := range sent {
			redact(out.ans.body, l.token)
		}
		return failed(fromProblem(out.ans.status, out.ans.body, what, "", out.ans.retryAfter)), nil
	}
	raw, _ := out.ans.body["results"].([]any)
	results := make([]map[string]any, 0, len(raw))
	for _, r := range raw {
		if m, ok := r.(map[string]any); ok {
			results = append(results, m)
		}
	}
	if len(raw) != len(sent) || len(results) != len(raw) {
		return failed(&ServiceError{Kind: ErrServer, Code: "BAD_ANSWER", Message: what + ": the answer's results are not one object per lease sent"}), nil
	}
	byLease := make(map[*Lease]map[string]any, len(sent))
	for i, l := range sent {
		byLease[l] = results[i]
	}
	outcomes := make([]RenewOutcome, len(chunk))
	for i, l := range chunk {
		result, ok := byLease[l]
		if !ok {
			outcomes[i] = renewOutcome(l, &ServiceError{Kind: ErrUnavailable, Code: "UNAVAILABLE", Key: l.key,
				Message: fmt.Sprintf("renew of '%s': its local deadline passed before the %s was sent", l.key, what)})
			continue
		}
		outcomes[i] = l.applyBatchResult(result, out, what)
	}
	return outcomes, nil
}

// applyBatchResult applies the lease's result of an answered batch exactly as a single renew's answer.
func (l *Lease) applyBatchResult(result map[string]any, out *outcome, what string) RenewOutcome {
	if k, _ := result["lockKey"].(string); k != l.key {
		return renewOutcome(l, &ServiceError{Kind: ErrServer, Code: "BAD_ANSWER", Key: l.key,
			Message: fmt.Sprintf("%s: a result names lock '%v' where '%s' was sent", what, result["lockKey"], l.key)})
	}
	ans := &answer{status: 200, body: result}
	if e, has := result["error"]; has {
		problem, _ := e.(map[string]any)
		code, _ := problem["code"].(string)
		if code == "" {
			code = "INTERNAL"
		}
		status, known := batchStatus[code]
		if !known {
			status = 500
		}
		body := map[string]any{"error": code}
		if msg, ok := problem["message"].(string); ok {
			body["detail"] = msg
			redact(body, l.token)
		}
		ans = &answer{status: status, body: body}
	}
	if refusal := l.apply(&outcome{ans: ans, sent: out.sent, earliestAmbiguous: out.earliestAmbiguous, attempts: out.attempts}); refusal != nil {
		return renewOutcome(l, refusal)
	}
	o := renewOutcome(l, nil)
	o.Renewed = true
	if ms, ok := integer(result["expiresAt"]); ok {
		o.ExpiresAt = time.UnixMilli(ms)
	}
	o.ValidFor = validity(result, l.ttl)
	return o
}

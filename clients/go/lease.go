package zkfence

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// A lease's states: held until its local deadline passes or the service refuses a renewal (lost),
// or until it is released. Lost and released are final.
const (
	StateHeld     = "held"
	StateLost     = "lost"
	StateReleased = "released"
)

// Lease is a lock granted by the service. FencingToken goes with every write the lock protects;
// the resource rejects lower ones. Valid turns false at the local deadline (counted from the
// moment the granting or last renewing request was sent, less a drift margin, on
// CLOCK_BOOTTIME on Linux: it errs early, never late) or when the service refuses a renewal; then
// Done is closed, OnLost runs once and Check returns a *LeaseLostError.
type Lease struct {
	client    *Client
	key       string
	requestID string
	token     string // the lockToken: a bearer credential, shown nowhere
	fencing   int64
	ttl       time.Duration
	manual    bool
	onLost    func(*Lease)

	mu        sync.Mutex
	state     string
	reason    error
	pending   error // the last renewal failure, if any
	deadline  time.Duration
	renewAt   time.Duration
	expiresAt int64
	wasHeld   bool

	stop     context.Context // cancelled on release: ends the renewal and its calls
	stopNow  context.CancelFunc
	done     chan struct{} // closed when the lease is lost or released
	doneOnce sync.Once
	wake     chan struct{} // the renewal loop looks at its schedule again
}

func newLease(c *Client, key, rid, token string, fencing, expiresAt int64, deadline, renewAt, ttl time.Duration, opts AcquireOptions) *Lease {
	l := &Lease{client: c, key: key, requestID: rid, token: token, fencing: fencing, ttl: ttl, manual: opts.ManualRenew,
		onLost: opts.OnLost, state: StateHeld, deadline: deadline, renewAt: renewAt, expiresAt: expiresAt,
		done: make(chan struct{}), wake: make(chan struct{}, 1)}
	l.stop, l.stopNow = context.WithCancel(context.Background())
	go l.run()
	return l
}

func (l *Lease) Key() string         { return l.key }
func (l *Lease) OwnerID() string     { return l.client.ownerID }
func (l *Lease) RequestID() string   { return l.requestID }
func (l *Lease) FencingToken() int64 { return l.fencing }

// ExpiresAt is the lease's end on the replica's wall clock, for display (use Valid to decide).
func (l *Lease) ExpiresAt() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return time.UnixMilli(l.expiresAt)
}

// Done is closed when the lease is lost or released (etcd's Session.Done()).
func (l *Lease) Done() <-chan struct{} { return l.done }

// Valid is true while the lease is held and its local deadline has not passed.
func (l *Lease) Valid() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state == StateHeld && now() < l.deadline
}

// Remaining is the time left until the local deadline (0 once the lease is not valid).
func (l *Lease) Remaining() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state != StateHeld || now() >= l.deadline {
		return 0
	}
	return l.deadline - now()
}

// State is StateHeld, StateLost or StateReleased (a held lease past its deadline reads lost).
func (l *Lease) State() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state == StateHeld && now() >= l.deadline {
		return StateLost
	}
	return l.state
}

// LostReason is what ended the lease: the service's refusal, the ErrUnavailable of renewals that
// got no answer in time, or nil.
func (l *Lease) LostReason() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reason
}

// Check returns nil if the lease is valid now, else a *LeaseLostError. Call it before each write.
func (l *Lease) Check() error {
	if l.Valid() {
		return nil
	}
	return l.lostError(false)
}

func (l *Lease) lostError(inBlock bool) *LeaseLostError {
	l.mu.Lock()
	state, reason, deadline := l.state, l.reason, l.deadline
	l.mu.Unlock()
	var why string
	switch {
	case state == StateReleased && !inBlock:
		why = "it was released"
	case reason != nil:
		why = reason.Error()
	default:
		why = fmt.Sprintf("its local deadline passed %d ms ago without a renewal", (now() - deadline).Milliseconds())
	}
	what := "is not valid"
	if inBlock {
		what = "was lost before the end of its block"
	}
	return &LeaseLostError{Key: l.key, FencingToken: l.fencing, Reason: reason,
		Message: fmt.Sprintf("lease on lock '%s' (fencing token %d) %s: %s; stop writing with this token", l.key, l.fencing, what, why)}
}

// String shows the lease, never its lockToken.
func (l *Lease) String() string {
	return fmt.Sprintf("zkfence.Lease{key: %q, ownerID: %q, fencingToken: %d, state: %s, remaining: %s}",
		l.key, l.client.ownerID, l.fencing, l.State(), l.Remaining().Round(time.Millisecond))
}

// GoString is String: %#v shows no lockToken either.
func (l *Lease) GoString() string { return l.String() }

// Renew renews now (the background renewal does it by itself unless ManualRenew). Returns a
// *LeaseLostError if the lease is or becomes lost, ErrUnavailable if no replica answered before
// the local deadline.
func (l *Lease) Renew(ctx context.Context) error {
	if err := l.Check(); err != nil {
		return err
	}
	both, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-l.stop.Done():
			cancel()
		case <-both.Done():
		}
	}()
	l.mu.Lock()
	deadline := l.deadline
	l.mu.Unlock()
	out, err := l.sendRenew(both, deadline)
	if err != nil {
		if l.stop.Err() != nil {
			return l.Check()
		}
		return err
	}
	if refusal := l.apply(out); refusal != nil {
		if err := l.Check(); err != nil {
			return err
		}
		return refusal
	}
	return nil
}

// Release gives the lock back (the renewal stops first). Returns whether the service still held
// the lease. Idempotent. ErrUnavailable if no replica answered within the client's timeout (the
// lease then ends at its TTL).
func (l *Lease) Release(ctx context.Context) (bool, error) {
	l.mu.Lock()
	if l.state == StateReleased {
		held := l.wasHeld
		l.mu.Unlock()
		return held, nil
	}
	var refused bool
	var se *ServiceError
	if errors.As(l.reason, &se) {
		refused = se.Kind == ErrLeaseExpired || se.Kind == ErrNotLockOwner || se.Kind == ErrRequestFinished
	}
	l.state = StateReleased
	l.mu.Unlock()
	l.end()
	if refused {
		return false, nil
	}
	what := fmt.Sprintf("release of '%s'", l.key)
	body := map[string]any{"ownerId": l.client.ownerID, "lockToken": l.token}
	out, err := l.client.call(ctx, "POST", lockPath(l.key)+"/release", func(time.Duration) any { return body },
		callSpec{until: now() + l.client.timeout, what: what, key: l.key, secret: l.token})
	if err != nil {
		return false, err
	}
	if out.ans.status != 200 {
		return false, fromProblem(out.ans.status, out.ans.body, what, l.key, out.ans.retryAfter)
	}
	held, _ := out.ans.body["wasHeld"].(bool)
	l.mu.Lock()
	l.wasHeld = held
	l.mu.Unlock()
	return held, nil
}

func (l *Lease) end() {
	l.stopNow()
	l.doneOnce.Do(func() { close(l.done) })
}

func (l *Lease) run() {
	for {
		l.mu.Lock()
		if l.state != StateHeld {
			l.mu.Unlock()
			return
		}
		deadline, pending := l.deadline, l.pending
		due := deadline
		if !l.manual && l.renewAt < due {
			due = l.renewAt
		}
		l.mu.Unlock()
		at := now()
		if at >= deadline {
			l.lose(pending)
			return
		}
		if due > at {
			t := time.NewTimer(due - at)
			select {
			case <-t.C:
			case <-l.wake:
				t.Stop()
			case <-l.stop.Done():
				t.Stop()
				return
			}
			continue
		}
		out, err := l.sendRenew(l.stop, deadline)
		if err != nil {
			if l.stop.Err() != nil {
				return
			}
			l.retryLater(err) // no replica answered in time, or a bad answer
			continue
		}
		l.apply(out)
	}
}

func (l *Lease) sendRenew(ctx context.Context, deadline time.Duration) (*outcome, error) {
	body := l.renewBody()
	return l.client.call(ctx, "POST", lockPath(l.key)+"/renew", func(time.Duration) any { return body }, callSpec{
		until: deadline, what: fmt.Sprintf("renew of '%s'", l.key), key: l.key, secret: l.token,
		attemptTimeout: halfLeft})
}

// renewBody is a renewal's fields for this lease (a batch renewal adds the lockKey).
func (l *Lease) renewBody() map[string]any {
	ttl := l.ttl.Milliseconds()
	if ttl < 1 {
		ttl = 1
	}
	return map[string]any{"ownerId": l.client.ownerID, "lockToken": l.token, "ttlMillis": ttl}
}

// halfLeft bounds a renewal's attempt: each gets half of what is left, so a replica that does not
// answer (paused) leaves time to renew through another one before the deadline.
func halfLeft(at, until time.Duration) time.Duration {
	if half := (until - at) / 2; half > time.Millisecond {
		return half
	}
	return time.Millisecond
}

// apply takes a renewal's answer: nil if renewed, else the refusal (the lease is lost already for
// a final one).
func (l *Lease) apply(out *outcome) error {
	if out.ans.status == 200 {
		valid := validity(out.ans.body, l.ttl)
		l.mu.Lock()
		if l.state == StateHeld {
			if d := out.sent + usable(valid); d > l.deadline {
				l.deadline = d
			}
			l.renewAt = out.sent + valid/3
			l.pending = nil
			if ms, ok := integer(out.ans.body["expiresAt"]); ok {
				l.expiresAt = ms
			}
		}
		l.mu.Unlock()
		l.poke()
		return nil
	}
	refusal := fromProblem(out.ans.status, out.ans.body, fmt.Sprintf("renew of '%s'", l.key), l.key, out.ans.retryAfter)
	switch refusal.Kind {
	case ErrLeaseExpired, ErrNotLockOwner, ErrRequestFinished:
		l.lose(refusal)
		return refusal
	}
	// Refused for a reason that may pass (a key being rotated, a server error): keep the lease
	// until its deadline and try again in a while.
	l.client.log("error", fmt.Sprintf("renew of '%s' (fencing token %d) refused: %v; retrying until the lease's local deadline", l.key, l.fencing, refusal), map[string]any{"key": l.key})
	l.retryLater(refusal)
	return refusal
}

func (l *Lease) retryLater(failure error) {
	l.mu.Lock()
	l.pending = failure
	wait := (l.deadline - now()) / 4
	if wait > time.Second {
		wait = time.Second
	}
	if wait < 0 {
		wait = 0
	}
	l.renewAt = now() + wait
	l.mu.Unlock()
	l.poke()
}

func (l *Lease) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *Lease) lose(reason error) {
	l.mu.Lock()
	if l.state != StateHeld {
		l.mu.Unlock()
		return
	}
	l.state, l.reason = StateLost, reason
	l.mu.Unlock()
	l.end()
	why := "its local deadline passed (not renewed)"
	if reason != nil {
		why = reason.Error()
	}
	l.client.log("warn", fmt.Sprintf("lease on lock '%s' (fencing token %d) lost: %s", l.key, l.fencing, why), map[string]any{"key": l.key})
	if l.onLost != nil {
		go l.onLost(l)
	}
}

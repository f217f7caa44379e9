package zkfence

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"time"
)

// Back-off after a replica failed: full jitter from 50 ms, doubling per failure of the call, up to 2 s.
const (
	backoffBase = 50 * time.Millisecond
	backoffCap  = 2 * time.Second
)

type replicaState struct {
	url       string
	notBefore time.Duration
}

type replicas struct {
	mu        sync.Mutex
	states    []*replicaState
	preferred int
	rng       *rand.Rand
}

// outcome is a call's answer and what its attempts tell about when the replica acted on it.
type outcome struct {
	ans               *answer
	sent              time.Duration // the answering attempt's send time (on now)
	earliestAmbiguous time.Duration // earliest send of an attempt that may have acted, unanswered; -1: none
	attempts          int
}

// callSpec is what a call needs besides its method and path.
type callSpec struct {
	until          time.Duration
	what, key, rid string
	secret         string                                      // redacted from the answer's strings
	attemptTimeout func(at, until time.Duration) time.Duration // default: all that is left
}

func (r *replicas) urls() []string {
	out := make([]string, len(r.states))
	for i, s := range r.states {
		out[i] = s.url
	}
	return out
}

func (r *replicas) next(at time.Duration) *replicaState {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.states)
	best := r.states[r.preferred]
	for i := 0; i < n; i++ {
		s := r.states[(r.preferred+i)%n]
		if s.notBefore <= at {
			return s
		}
		if s.notBefore < best.notBefore {
			best = s
		}
	}
	return best
}

func (r *replicas) failed(s *replicaState, failures int, hint time.Duration) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	limit := backoffBase << uint(failures)
	if limit > backoffCap || limit <= 0 {
		limit = backoffCap
	}
	pause := time.Duration(r.rng.Int63n(int64(limit) + 1))
	if hint > pause {
		pause = hint
	}
	s.notBefore = now() + pause
	for i, x := range r.states {
		if x == s && r.preferred == i {
			r.preferred = (i + 1) % len(r.states)
		}
	}
	return pause
}

func (r *replicas) answered(s *replicaState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s.notBefore = 0
	for i, x := range r.states {
		if x == s {
			r.preferred = i
		}
	}
}

// call sends the request until a replica answers it with anything but a retryable failure
// (a connection error, a timeout, 503 UNAVAILABLE or SHUTTING_DOWN: the same request again, on the
// next replica), or until spec.until passes (ErrUnavailable, the last failure as its Cause).
// body, if not nil, makes the request body from the send time. ctx's end ends the call.
func (c *Client) call(ctx context.Context, method, path string, body func(at time.Duration) any, spec callSpec) (*outcome, error) {
	failures := 0
	ambiguous := time.Duration(-1)
	var last error
	label := spec.what
	if spec.rid != "" {
		label += fmt.Sprintf(" (requestId %s)", spec.rid)
	}
	for {
		at := now()
		state := c.replicas.next(at)
		begin := at
		if state.notBefore > begin {
			begin = state.notBefore
		}
		if begin >= spec.until {
			msg := fmt.Sprintf("%s: no replica answered within the call's time bound (%d attempts on %s)", label, failures, strings.Join(c.replicas.urls(), ", "))
			detail := ""
			if last != nil {
				msg += "; last: " + last.Error()
				detail = last.Error()
			}
			return nil, &ServiceError{Kind: ErrUnavailable, Code: "UNAVAILABLE", Key: spec.key, Detail: detail, Message: msg, Cause: last}
		}
		if begin > at {
			if err := sleep(ctx, begin-at); err != nil {
				return nil, err
			}
			at = now()
		}
		timeout := spec.until - at
		if spec.attemptTimeout != nil {
			timeout = spec.attemptTimeout(at, spec.until)
		}
		var payload any
		if body != nil {
			payload = body(at)
		}
		sent := now()
		c.log("debug", label+": sending to "+state.url, map[string]any{"requestId": spec.rid, "replica": state.url})
		ans, err := c.exchange(ctx, state.url, method, path, payload, timeout)
		hint := time.Duration(0)
		if err != nil {
			ae, ok := err.(*attemptError)
			if !ok {
				return nil, err // the caller's context ended
			}
			switch ae.kind {
			case "bad answer":
				return nil, &ServiceError{Kind: ErrServer, Code: "BAD_ANSWER", Key: spec.key, Message: label + ": " + ae.msg, Cause: ae}
			case "no answer":
				if ambiguous < 0 || sent < ambiguous {
					ambiguous = sent
				}
			}
			last = ae
		} else {
			if spec.secret != "" {
				redact(ans.body, spec.secret)
			}
			code, _ := ans.body["error"].(string)
			if ans.status != 503 || (code != "UNAVAILABLE" && code != "SHUTTING_DOWN") {
				c.replicas.answered(state)
				return &outcome{ans: ans, sent: sent, earliestAmbiguous: ambiguous, attempts: failures + 1}, nil
			}
			if code == "UNAVAILABLE" && (ambiguous < 0 || sent < ambiguous) {
				ambiguous = sent // ZooKeeper trouble: a write may have been applied before the answer was lost
			}
			problem := fromProblem(ans.status, ans.body, state.url, spec.key, ans.retryAfter)
			hint = retryAfter(ans.body, ans.retryAfter)
			last = problem
		}
		pause := c.replicas.failed(state, failures, hint)
		failures++
		level := "warn"
		if se, ok := last.(*ServiceError); ok && se.Code == "SHUTTING_DOWN" {
			level = "info"
		}
		left := spec.until - now()
		if left < 0 {
			left = 0
		}
		c.log(level, fmt.Sprintf("%s failed: %v; retrying with the same request, %d ms left", label, last, left.Milliseconds()),
			map[string]any{"requestId": spec.rid, "replica": state.url, "backoff": pause})
	}
}

func redact(body map[string]any, secret string) {
	for k, v := range body {
		if s, ok := v.(string); ok && k != "lockToken" {
			body[k] = strings.ReplaceAll(s, secret, "<lockToken>")
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	zkfence "github.com/zkfence/zkfence/clients/go"
)

// reply is a scripted answer; hangUp closes the connection without one, never holds it open.
type reply struct {
	status  int
	body    any // a map (JSON) or []byte
	headers map[string]string
	delay   time.Duration
	hangUp  bool
	never   bool
}

type request struct {
	path string
	body map[string]any
	at   time.Time
	size int // the body's bytes
}

// scriptedReplica answers the n-th request of each kind (the path's last word) as script says.
type scriptedReplica struct {
	mu       sync.Mutex
	requests []request
	answered []time.Time
	counts   map[string]int
	server   *http.Server
	closing  chan struct{}
	url      string
}

func newScripted(t *testing.T, script func(kind string, req request, n int) reply) *scriptedReplica {
	s := &scriptedReplica{counts: map[string]int{}, closing: make(chan struct{})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.url = "http://" + l.Addr().String()
	s.server = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		body := map[string]any{}
		_ = json.Unmarshal(raw, &body)
		parts := strings.Split(strings.TrimRight(r.URL.Path, "/"), "/")
		kind := parts[len(parts)-1]
		req := request{path: r.URL.Path, body: body, at: time.Now(), size: len(raw)}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		n := s.counts[kind]
		s.counts[kind] = n + 1
		s.mu.Unlock()
		rep := script(kind, req, n)
		if rep.never {
			<-s.closing
			return
		}
		if rep.hangUp {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		time.Sleep(rep.delay)
		data, ok := rep.body.([]byte)
		if !ok {
			data, _ = json.Marshal(rep.body)
		}
		for k, v := range rep.headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		_, _ = w.Write(data)
		s.mu.Lock()
		s.answered = append(s.answered, time.Now())
		s.mu.Unlock()
	})}
	go func() { _ = s.server.Serve(l) }()
	t.Cleanup(func() { close(s.closing); _ = s.server.Close() })
	return s
}

func (s *scriptedReplica) of(kind string) []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []request
	for _, r := range s.requests {
		if strings.HasSuffix(strings.TrimRight(r.path, "/"), "/"+kind) {
			out = append(out, r)
		}
	}
	return out
}

func problem(status int, code, detail string, extra map[string]any) reply {
	b := map[string]any{"type": "urn:zkfence:error:" + code, "title": strings.ToLower(code), "status": status, "detail": detail, "error": code}
	for k, v := range extra {
		b[k] = v
	}
	return reply{status: status, body: b}
}

func grant(token string, validFor int, delay time.Duration) reply {
	b := map[string]any{"lockKey": "conf:k", "lockToken": token, "fencingToken": 42, "ownerId": "o", "expiresAt": time.Now().UnixMilli() + 30000}
	if validFor >= 0 {
		b["validForMillis"] = validFor
	}
	return reply{status: 200, body: b, delay: delay}
}

func renewed(validFor int) reply {
	b := map[string]any{"lockKey": "conf:k", "expiresAt": time.Now().UnixMilli() + 30000}
	if validFor >= 0 {
		b["validForMillis"] = validFor
	}
	return reply{status: 200, body: b}
}

var released = reply{status: 200, body: map[string]any{"status": "RELEASED", "wasHeld": true}}

const scriptedKey = "conf:scripted"
const defaultToken = "lock-token-0123456789abcdef"

// byKind scripts acquire; renew and release answer as a plain service does unless given.
func byKind(acquire func(n int) reply, renew func(n int) reply) func(string, request, int) reply {
	return func(kind string, _ request, n int) reply {
		switch kind {
		case "acquire":
			return acquire(n)
		case "renew":
			if renew != nil {
				return renew(n)
			}
			return renewed(-1)
		}
		return released
	}
}

func newClient(t *testing.T, urls []string, opts zkfence.Options) *zkfence.Client {
	c, err := zkfence.NewClient(urls, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func kindOf(err error) error {
	for _, k := range []error{zkfence.ErrLockHeld, zkfence.ErrTooManyWaiters, zkfence.ErrRequestFinished, zkfence.ErrLeaseExpired,
		zkfence.ErrNotLockOwner, zkfence.ErrForbidden, zkfence.ErrUnauthorized, zkfence.ErrBadRequest, zkfence.ErrPayloadTooLarge,
		zkfence.ErrUnavailable, zkfence.ErrServer} {
		if errors.Is(err, k) {
			return k
		}
	}
	return nil
}

var _ = scenario("bad-arguments-refused", func(e *env) {
	t := e.t
	r := newScripted(t, byKind(func(int) reply { return grant(defaultToken, -1, 0) }, nil))
	for _, bad := range []struct {
		urls  []string
		opts  zkfence.Options
		named string
	}{{nil, zkfence.Options{}, "replicas"}, {[]string{"ftp://a:21"}, zkfence.Options{}, "ftp://a:21"},
		{[]string{r.url}, zkfence.Options{Timeout: -time.Second}, "Timeout"}} {
		if _, err := zkfence.NewClient(bad.urls, bad.opts); err == nil || !strings.Contains(err.Error(), bad.named) {
			t.Errorf("NewClient(%v, %+v): %v, want an error naming %s", bad.urls, bad.opts, err, bad.named)
		}
	}
	c := newClient(t, []string{r.url}, zkfence.Options{})
	for _, bad := range []struct {
		key   string
		opts  zkfence.AcquireOptions
		named string
	}{{scriptedKey, zkfence.AcquireOptions{TTL: time.Microsecond}, "TTL"}, {scriptedKey, zkfence.AcquireOptions{Wait: -5 * time.Second}, "Wait"},
		{"  ", zkfence.AcquireOptions{}, "key"}, {"conf:" + strings.Repeat("é", 130), zkfence.AcquireOptions{}, "key"}} {
		if _, err := c.Acquire(background, bad.key, bad.opts); err == nil || !strings.Contains(err.Error(), bad.named) {
			t.Errorf("Acquire(%q, %+v): %v, want an error naming %s", bad.key[:5], bad.opts, err, bad.named)
		}
	}
	if len(r.of("acquire")) != 0 {
		t.Errorf("the scripted replica received %d requests", len(r.of("acquire")))
	}
})

var _ = scenario("deadline-counts-from-send-time", func(e *env) {
	r := newScripted(e.t, byKind(func(int) reply { return grant(defaultToken, 1000, 600*time.Millisecond) }, nil))
	lease, err := newClient(e.t, []string{r.url}, zkfence.Options{}).Acquire(background, scriptedKey, zkfence.AcquireOptions{TTL: 30 * time.Second, Wait: zkfence.NoWait, ManualRenew: true})
	if err != nil {
		e.t.Fatal(err)
	}
	if rem := lease.Remaining(); rem > 400*time.Millisecond {
		e.t.Errorf("remaining %s right after the acquire, want at most 400ms", rem)
	}
	_, _ = lease.Release(background)
})

var _ = scenario("deadline-fallback-ttl-from-send-time", func(e *env) {
	r := newScripted(e.t, byKind(func(int) reply { return grant(defaultToken, -1, 600*time.Millisecond) }, nil))
	lease, err := newClient(e.t, []string{r.url}, zkfence.Options{}).Acquire(background, scriptedKey, zkfence.AcquireOptions{TTL: time.Second, Wait: zkfence.NoWait, ManualRenew: true})
	if err != nil {
		e.t.Fatal(err)
	}
	if rem := lease.Remaining(); rem > 400*time.Millisecond {
		e.t.Errorf("remaining %s right after the acquire, want at most 400ms", rem)
	}
	_, _ = lease.Release(background)
})

var _ = scenario("renews-at-third-of-validity", func(e *env) {
	r := newScripted(e.t, byKind(func(int) reply { return grant(defaultToken, 3000, 0) }, func(int) reply { return renewed(3000) }))
	lease, err := newClient(e.t, []string{r.url}, zkfence.Options{}).Acquire(background, scriptedKey, zkfence.AcquireOptions{TTL: 60 * time.Second, Wait: zkfence.NoWait})
	if err != nil {
		e.t.Fatal(err)
	}
	awaitTrue(e.t, "three renewals", func() bool { return len(r.of("renew")) >= 3 }, 15*time.Second)
	if !lease.Valid() || lease.State() != zkfence.StateHeld {
		e.t.Errorf("lease %s after the renewals", lease)
	}
	for _, q := range r.of("renew") {
		if q.body["ttlMillis"] != float64(60000) {
			e.t.Errorf("renew asked ttlMillis %v, want 60000", q.body["ttlMillis"])
		}
	}
	_, _ = lease.Release(background)
})

var _ = scenario("error-codes-are-typed", func(e *env) {
	t := e.t
	cases := []struct {
		r     reply
		kind  error
		check func(*zkfence.ServiceError) bool
	}{
		{problem(400, "BAD_REQUEST", "ttlMillis must be a whole number", nil), zkfence.ErrBadRequest, nil},
		{problem(401, "UNAUTHORIZED", "no API key", nil), zkfence.ErrUnauthorized, nil},
		{problem(403, "NAMESPACE_FORBIDDEN", "not yours", nil), zkfence.ErrForbidden, nil},
		{problem(403, "ADMIN_REQUIRED", "admins only", nil), zkfence.ErrForbidden, nil},
		{problem(409, "LOCK_ALREADY_HELD", "held by 'x'", map[string]any{"currentOwner": "x", "retryAfterMillis": 1500}), zkfence.ErrLockHeld,
			func(se *zkfence.ServiceError) bool { return se.Owner == "x" && se.RetryAfter == 1500*time.Millisecond }},
		{reply{status: 409, body: map[string]any{"error": "LOCK_ALREADY_HELD", "detail": "held", "status": 409}, headers: map[string]string{"Retry-After": "3"}}, zkfence.ErrLockHeld,
			func(se *zkfence.ServiceError) bool { return se.RetryAfter == 3*time.Second }},
		{problem(409, "REQUEST_FINISHED", "finished", map[string]any{"outcome": "RELEASED"}), zkfence.ErrRequestFinished,
			func(se *zkfence.ServiceError) bool { return se.Outcome == "RELEASED" }},
		{problem(413, "PAYLOAD_TOO_LARGE", "body over 64 KiB", nil), zkfence.ErrPayloadTooLarge, nil},
		{problem(429, "TOO_MANY_WAITERS", "queue full", map[string]any{"retryAfterMillis": 700}), zkfence.ErrTooManyWaiters,
			func(se *zkfence.ServiceError) bool { return se.RetryAfter == 700*time.Millisecond }},
		{problem(500, "INTERNAL", "boom", nil), zkfence.ErrServer, nil},
		{problem(418, "TEAPOT", "unknown code", nil), zkfence.ErrServer, nil},
		{reply{status: 200, body: []byte("<html>not json</html>")}, zkfence.ErrServer, nil},
	}
	r := newScripted(t, byKind(func(n int) reply { return cases[n].r }, nil))
	c := newClient(t, []string{r.url}, zkfence.Options{Timeout: 2 * time.Second})
	for i, tc := range cases {
		_, err := c.Acquire(background, scriptedKey, zkfence.AcquireOptions{TTL: 5 * time.Second, Wait: zkfence.NoWait, RequestID: "rid-" + string(rune('a'+i))})
		var se *zkfence.ServiceError
		if !errors.As(err, &se) || kindOf(err) != tc.kind {
			t.Errorf("answer %d: %v, want %v", i, err, tc.kind)
			continue
		}
		if m, ok := tc.r.body.(map[string]any); ok {
			if se.Status != tc.r.status || se.Code != m["error"] || !strings.Contains(se.Error(), m["detail"].(string)) {
				t.Errorf("answer %d: status %d code %s message %q", i, se.Status, se.Code, se.Error())
			}
		}
		if tc.check != nil && !tc.check(se) {
			t.Errorf("answer %d: fields %+v", i, se)
		}
	}
	if n := len(r.of("acquire")); n != len(cases) {
		t.Errorf("%d acquires for %d answers: some were retried", n, len(cases))
	}
})

var _ = scenario("too-many-waiters-retried-with-same-request-id", func(e *env) {
	r := newScripted(e.t, byKind(func(n int) reply {
		if n == 0 {
			return problem(429, "TOO_MANY_WAITERS", "full", map[string]any{"retryAfterMillis": 200})
		}
		return grant(defaultToken, -1, 0)
	}, nil))
	lease, err := newClient(e.t, []string{r.url}, zkfence.Options{}).Acquire(background, scriptedKey, zkfence.AcquireOptions{TTL: 5 * time.Second, Wait: 5 * time.Second})
	if err != nil {
		e.t.Fatal(err)
	}
	q := r.of("acquire")
	if len(q) != 2 || q[0].body["requestId"] != q[1].body["requestId"] || lease.RequestID() != q[0].body["requestId"] {
		e.t.Errorf("requests %v, lease %s", q, lease.RequestID())
	}
	if gap := q[1].at.Sub(r.answered[0]); gap < 190*time.Millisecond {
		e.t.Errorf("retried after %s, want 200ms", gap)
	}
	_, _ = lease.Release(background)
})

var _ = scenario("request-finished-after-retry-starts-new-request", func(e *env) {
	script := []reply{{hangUp: true}, problem(409, "REQUEST_FINISHED", "gave up", map[string]any{"outcome": "GAVE_UP"}), grant(defaultToken, -1, 0)}
	r := newScripted(e.t, byKind(func(n int) reply { return script[n] }, nil))
	lease, err := newClient(e.t, []string{r.url}, zkfence.Options{}).Acquire(background, scriptedKey, zkfence.AcquireOptions{TTL: 5 * time.Second, Wait: 5 * time.Second})
	if err != nil {
		e.t.Fatal(err)
	}
	q := r.of("acquire")
	if len(q) != 3 || q[0].body["requestId"] != q[1].body["requestId"] || q[1].body["requestId"] == q[2].body["requestId"] || lease.RequestID() != q[2].body["requestId"] {
		e.t.Errorf("requestIds %v %v %v, lease %s", q[0].body["requestId"], q[1].body["requestId"], q[2].body["requestId"], lease.RequestID())
	}
	_, _ = lease.Release(background)
})

var _ = scenario("retry-after-honoured", func(e *env) {
	r := newScripted(e.t, byKind(func(n int) reply {
		if n == 0 {
			p := problem(503, "UNAVAILABLE", "busy", nil)
			p.headers = map[string]string{"Retry-After": "1"}
			return p
		}
		return grant(defaultToken, -1, 0)
	}, nil))
	lease, err := newClient(e.t, []string{r.url}, zkfence.Options{}).Acquire(background, scriptedKey, zkfence.AcquireOptions{TTL: 5 * time.Second, Wait: 5 * time.Second})
	if err != nil {
		e.t.Fatal(err)
	}
	if gap := r.of("acquire")[1].at.Sub(r.answered[0]); gap < 990*time.Millisecond {
		e.t.Errorf("retried after %s, want 1s", gap)
	}
	_, _ = lease.Release(background)
})

var _ = scenario("all-replicas-failing-ends-within-bound", func(e *env) {
	down := func(int) reply { return problem(503, "UNAVAILABLE", "ZooKeeper unreachable", nil) }
	r1, r2 := newScripted(e.t, byKind(down, nil)), newScripted(e.t, byKind(down, nil))
	began := time.Now()
	_, err := newClient(e.t, []string{r1.url, r2.url}, zkfence.Options{Timeout: time.Second}).Acquire(background, scriptedKey, zkfence.AcquireOptions{TTL: 5 * time.Second, Wait: 500 * time.Millisecond})
	if !errors.Is(err, zkfence.ErrUnavailable) || time.Since(began) > 6500*time.Millisecond {
		e.t.Fatalf("%v after %s", err, time.Since(began))
	}
	var se *zkfence.ServiceError
	errors.As(err, &se)
	var cause *zkfence.ServiceError
	if !errors.As(se.Cause, &cause) || cause.Status != 503 || cause.Code != "UNAVAILABLE" {
		e.t.Errorf("cause %v", se.Cause)
	}
	all := append(r1.of("acquire"), r2.of("acquire")...)
	ids := map[any]bool{}
	for _, q := range all {
		ids[q.body["requestId"]] = true
	}
	if len(r1.of("acquire")) == 0 || len(r2.of("acquire")) == 0 || len(all) <= 2 || len(ids) != 1 {
		e.t.Errorf("attempts %d + %d, requestIds %v", len(r1.of("acquire")), len(r2.of("acquire")), ids)
	}
})

var _ = scenario("timeout-follows-wait", func(e *env) {
	r := newScripted(e.t, byKind(func(int) reply { return reply{never: true} }, nil))
	began := time.Now()
	_, err := newClient(e.t, []string{r.url}, zkfence.Options{Timeout: time.Second}).Acquire(background, scriptedKey, zkfence.AcquireOptions{TTL: 5 * time.Second, Wait: time.Second})
	elapsed := time.Since(began)
	if !errors.Is(err, zkfence.ErrUnavailable) || elapsed < 1950*time.Millisecond || elapsed > 7*time.Second {
		e.t.Errorf("%v after %s", err, elapsed)
	}
	if w, _ := r.of("acquire")[0].body["waitMillis"].(float64); w > 1000 {
		e.t.Errorf("waitMillis %v", w)
	}
})

var _ = scenario("server-detail-with-lock-token-redacted", func(e *env) {
	token := "lock-token-SECRET-" + randomHex(8)
	r := newScripted(e.t, byKind(func(int) reply { return grant(token, 30000, 0) },
		func(int) reply { return problem(400, "BAD_REQUEST", "lockToken '"+token+"' is malformed", nil) }))
	var logged []string
	logger := func(level, msg string, fields map[string]any) { logged = append(logged, msg) }
	lease, err := newClient(e.t, []string{r.url}, zkfence.Options{Logger: logger}).Acquire(background, scriptedKey, zkfence.AcquireOptions{TTL: 30 * time.Second, Wait: zkfence.NoWait, ManualRenew: true})
	if err != nil {
		e.t.Fatal(err)
	}
	err = lease.Renew(background)
	var se *zkfence.ServiceError
	if !errors.As(err, &se) || se.Kind != zkfence.ErrBadRequest || !strings.Contains(se.Error(), "is malformed") || strings.Contains(se.Error(), token) || strings.Contains(se.Detail, token) {
		e.t.Errorf("renew: %v", err)
	}
	for _, l := range logged {
		if strings.Contains(l, token) {
			e.t.Errorf("logged the lockToken: %s", l)
		}
	}
	_, _ = lease.Release(background)
})

var _ = scenario("renewal-refused-loses-lease-at-once", func(e *env) {
	r := newScripted(e.t, byKind(func(int) reply { return grant(defaultToken, 3000, 0) },
		func(int) reply { return problem(403, "NOT_LOCK_OWNER", "not yours", nil) }))
	calls := make(chan *zkfence.Lease, 2)
	lease, err := newClient(e.t, []string{r.url}, zkfence.Options{}).Acquire(background, scriptedKey, zkfence.AcquireOptions{TTL: 30 * time.Second, Wait: zkfence.NoWait, OnLost: func(l *zkfence.Lease) { calls <- l }})
	if err != nil {
		e.t.Fatal(err)
	}
	deadline := time.Now().Add(lease.Remaining())
	select {
	case <-lease.Done():
	case <-time.After(patience):
		e.t.Fatal("the lease was not lost")
	}
	if time.Now().After(deadline) || !errors.Is(lease.LostReason(), zkfence.ErrNotLockOwner) {
		e.t.Errorf("lost at %s (deadline %s) with %v", time.Now(), deadline, lease.LostReason())
	}
	if l := <-calls; l != lease {
		e.t.Error("the callback got another lease")
	}
	if err := lease.Check(); !errors.Is(err, zkfence.ErrLeaseLost) || !errors.Is(err, zkfence.ErrNotLockOwner) {
		e.t.Errorf("check: %v", err)
	}
	if held, err := lease.Release(background); held || err != nil || len(r.of("release")) != 0 {
		e.t.Errorf("release: %v %v, %d sent", held, err, len(r.of("release")))
	}
	select {
	case <-calls:
		e.t.Error("the callback ran twice")
	default:
	}
})

var _ = context.Background

package conformance

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	zkfence "github.com/zkfence/zkfence/clients/go"
)

// The batch renewal scenarios (Client.RenewAll, POST /v1/leases/renew): against the real service
// and a scripted replica.

// acquireMany takes n locks '<key>-0' .. '-<n-1>' without waiting and without background renewal,
// eight at a time.
func (e *env) acquireMany(c *zkfence.Client, n int, opts zkfence.AcquireOptions) []*zkfence.Lease {
	e.t.Helper()
	opts.Wait, opts.ManualRenew = zkfence.NoWait, true
	leases := make([]*zkfence.Lease, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				leases[i], errs[i] = c.Acquire(background, fmt.Sprintf("%s-%d", e.key, i), opts)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			e.t.Fatalf("acquire %d: %v", i, err)
		}
	}
	return leases
}

func releaseAll(leases []*zkfence.Lease) int {
	held := make([]bool, len(leases))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				held[i], _ = leases[i].Release(background)
			}
		}()
	}
	for i := range leases {
		next <- i
	}
	close(next)
	wg.Wait()
	n := 0
	for _, h := range held {
		if h {
			n++
		}
	}
	return n
}

func (l *logRecords) batchSends() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.lines {
		if strings.HasPrefix(r.msg, "batch renewal") && strings.Contains(r.msg, "sending") {
			out = append(out, r.msg)
		}
	}
	return out
}

func (l *logRecords) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = nil
}

var _ = scenario("batch-renewal-renews-every-lease", func(e *env) {
	t := e.t
	log := &logRecords{}
	c := e.client(zkfence.Options{Logger: log.log}, e.cluster.a.url(), e.cluster.b.url())
	leases := e.acquireMany(c, 3, zkfence.AcquireOptions{TTL: 3 * time.Second})
	granted := make([]int64, len(leases))
	for i, l := range leases {
		granted[i] = e.cluster.expiresAt(l.Key())
	}
	awaitTrue(t, "1 s of the leases' validity passed", func() bool {
		for _, l := range leases {
			if l.Remaining() >= 2*time.Second {
				return false
			}
		}
		return true
	})
	log.clear()
	outcomes, err := c.RenewAll(background, leases)
	if err != nil {
		t.Fatal(err)
	}
	if sends := log.batchSends(); len(sends) != 1 || !strings.HasPrefix(sends[0], "batch renewal of 3 leases") {
		t.Fatalf("sends: %q", sends)
	}
	for i, l := range leases {
		o := outcomes[i]
		if o.Lease != l || !o.Renewed || o.Err != nil || o.Lost {
			t.Fatalf("outcome %d: %+v", i, o)
		}
		if !l.Valid() || l.Remaining() <= 2*time.Second {
			t.Fatalf("lease %d: %s", i, l)
		}
		if at := e.cluster.expiresAt(l.Key()); at != o.ExpiresAt.UnixMilli() || at < granted[i]+500 {
			t.Fatalf("lease %d: status expiresAt %d, outcome %d, granted %d", i, at, o.ExpiresAt.UnixMilli(), granted[i])
		}
		if !l.ExpiresAt().Equal(o.ExpiresAt) || o.ValidFor <= 2*time.Second {
			t.Fatalf("lease %d: expiresAt %s, outcome %+v", i, l.ExpiresAt(), o)
		}
	}
	for _, l := range leases {
		if held, err := l.Release(background); !held || err != nil {
			t.Fatal(held, err)
		}
	}
})

var _ = scenario("batch-renewal-refused-lease-lost-others-renewed", func(e *env) {
	t := e.t
	c := e.client(zkfence.Options{}, e.cluster.a.url(), e.cluster.b.url())
	calls := make(chan *zkfence.Lease, 3)
	leases := e.acquireMany(c, 3, zkfence.AcquireOptions{TTL: 5 * time.Second, OnLost: func(l *zkfence.Lease) { calls <- l }})
	granted := make([]int64, len(leases))
	for i, l := range leases {
		granted[i] = e.cluster.expiresAt(l.Key())
	}
	status, body := e.cluster.http("POST", leases[1].Key(), "/force-release", map[string]any{"reason": "conformance"}, opsKey, e.cluster.b)
	if status != 200 || body["status"] != "FORCE_RELEASED" {
		t.Fatalf("force-release: %d %v", status, body)
	}
	outcomes, err := c.RenewAll(background, leases)
	if err != nil {
		t.Fatal(err)
	}
	refused := outcomes[1]
	var se *zkfence.ServiceError
	if refused.Lease != leases[1] || refused.Renewed || !refused.Lost || !errors.Is(refused.Err, zkfence.ErrLeaseExpired) ||
		!errors.As(refused.Err, &se) || se.Code != "LOCK_EXPIRED" {
		t.Fatalf("refused outcome: %+v", refused)
	}
	if leases[1].LostReason() != refused.Err {
		t.Fatalf("lost reason %v", leases[1].LostReason())
	}
	waitDone(e, leases[1])
	if err := leases[1].Check(); !errors.Is(err, zkfence.ErrLeaseLost) {
		t.Fatalf("check: %v", err)
	}
	select {
	case l := <-calls:
		if l != leases[1] {
			t.Fatalf("callback for %s", l)
		}
	case <-time.After(patience):
		t.Fatal("the lost callback did not run")
	}
	for _, i := range []int{0, 2} {
		o := outcomes[i]
		if !o.Renewed || o.Err != nil || o.Lost || !leases[i].Valid() {
			t.Fatalf("outcome %d: %+v", i, o)
		}
		if at := e.cluster.expiresAt(leases[i].Key()); at != o.ExpiresAt.UnixMilli() || at <= granted[i] {
			t.Fatalf("lease %d: status expiresAt %d, outcome %d, granted %d", i, at, o.ExpiresAt.UnixMilli(), granted[i])
		}
	}
	if held, err := leases[1].Release(background); held || err != nil {
		t.Fatal(held, err)
	}
	for _, i := range []int{0, 2} {
		if held, err := leases[i].Release(background); !held || err != nil {
			t.Fatal(held, err)
		}
	}
	if len(calls) != 0 {
		t.Fatal("the lost callback ran for another lease")
	}
})

var _ = scenario("batch-renewal-chunks-over-1000", func(e *env) {
	t := e.t
	log := &logRecords{}
	c := e.client(zkfence.Options{Logger: log.log}, e.cluster.a.url(), e.cluster.b.url())
	leases := e.acquireMany(c, 1001, zkfence.AcquireOptions{TTL: time.Minute})
	defer func() {
		if n := releaseAll(leases); n != 1001 {
			t.Errorf("%d of 1001 releases found the lease held", n)
		}
	}()
	granted := []int64{e.cluster.expiresAt(leases[0].Key()), e.cluster.expiresAt(leases[1000].Key())}
	log.clear()
	outcomes, err := c.RenewAll(background, leases)
	if err != nil {
		t.Fatal(err)
	}
	sends := log.batchSends()
	if len(sends) != 2 || !strings.HasPrefix(sends[0], "batch renewal of 1000 leases:") || !strings.HasPrefix(sends[1], "batch renewal of 1 lease:") {
		t.Fatalf("sends: %q", sends)
	}
	if len(outcomes) != 1001 {
		t.Fatalf("%d outcomes", len(outcomes))
	}
	for i, o := range outcomes {
		if o.Lease != leases[i] || !o.Renewed {
			t.Fatalf("outcome %d: %+v", i, o)
		}
	}
	for k, i := range []int{0, 1000} {
		if at := e.cluster.expiresAt(leases[i].Key()); at != outcomes[i].ExpiresAt.UnixMilli() || at <= granted[k] {
			t.Fatalf("lease %d: status expiresAt %d, outcome %d, granted %d", i, at, outcomes[i].ExpiresAt.UnixMilli(), granted[k])
		}
	}
})

var _ = scenario("batch-renewal-answer-lost-retried", func(e *env) {
	t := e.t
	proxy := startProxy(t, e.cluster.a.url())
	lost := make(chan *zkfence.Lease, 2)
	c := e.client(zkfence.Options{}, proxy.url, e.cluster.b.url())
	var leases []*zkfence.Lease
	for i := 0; i < 2; i++ {
		l, err := c.Acquire(background, fmt.Sprintf("%s-%d", e.key, i), zkfence.AcquireOptions{TTL: 3 * time.Second, Wait: zkfence.NoWait, ManualRenew: true, OnLost: func(l *zkfence.Lease) { lost <- l }})
		if err != nil {
			t.Fatal(err)
		}
		leases = append(leases, l)
	}
	granted := []int64{e.cluster.expiresAt(leases[0].Key()), e.cluster.expiresAt(leases[1].Key())}
	proxy.drop(t, "renew")
	outcomes, err := c.RenewAll(background, leases)
	if err != nil {
		t.Fatal(err)
	}
	proxy.await(t, "dropped renew")
	for i, l := range leases {
		if !outcomes[i].Renewed || outcomes[i].Err != nil || !l.Valid() {
			t.Fatalf("outcome %d: %+v", i, outcomes[i])
		}
		if at := e.cluster.expiresAt(l.Key()); at <= granted[i] { // B's view (the cluster's status reads from B)
			t.Fatalf("lease %d: expiresAt %d, granted %d", i, at, granted[i])
		}
	}
	if len(lost) != 0 {
		t.Fatal("a lease was reported lost")
	}
	for _, l := range leases {
		if held, _ := l.Release(background); !held {
			t.Fatal("not held")
		}
	}
})

var batchKeys = []string{"conf:scripted-1", "conf:scripted-2"}

var _ = scenario("batch-renewal-deadline-from-send-time", func(e *env) {
	t := e.t
	r := newScripted(t, byKind(func(n int) reply { return grant(fmt.Sprintf("lock-token-%d-0123456789abcdef", n), 2000, 0) },
		func(int) reply {
			return reply{status: 200, delay: 600 * time.Millisecond, body: map[string]any{"results": []any{
				map[string]any{"lockKey": batchKeys[0], "expiresAt": time.Now().UnixMilli() + 3000, "validForMillis": 3000},
				map[string]any{"lockKey": batchKeys[1], "error": map[string]any{"code": "NOT_LOCK_OWNER", "message": "not this owner's lease"}},
			}}}
		}))
	c := newClient(t, []string{r.url}, zkfence.Options{})
	calls := make(chan *zkfence.Lease, 2)
	var leases []*zkfence.Lease
	for _, k := range batchKeys {
		l, err := c.Acquire(background, k, zkfence.AcquireOptions{TTL: 30 * time.Second, Wait: zkfence.NoWait, ManualRenew: true, OnLost: func(l *zkfence.Lease) { calls <- l }})
		if err != nil {
			t.Fatal(err)
		}
		leases = append(leases, l)
	}
	outcomes, err := c.RenewAll(background, leases)
	if err != nil {
		t.Fatal(err)
	}
	sent := r.of("renew")
	if len(sent) != 1 || sent[0].path != "/v1/leases/renew" {
		t.Fatalf("requests: %+v", sent)
	}
	items, _ := sent[0].body["leases"].([]any)
	if len(items) != 2 {
		t.Fatalf("body: %v", sent[0].body)
	}
	for i, item := range items {
		m := item.(map[string]any)
		want := map[string]any{"lockKey": batchKeys[i], "lockToken": fmt.Sprintf("lock-token-%d-0123456789abcdef", i), "ownerId": c.OwnerID(), "ttlMillis": float64(30000)}
		if fmt.Sprint(m) != fmt.Sprint(want) {
			t.Fatalf("lease %d sent as %v, want %v", i, m, want)
		}
	}
	if !outcomes[0].Renewed {
		t.Fatalf("outcome 0: %+v", outcomes[0])
	}
	if left := leases[0].Remaining(); left > 2400*time.Millisecond || left <= 1500*time.Millisecond {
		t.Fatalf("remaining %s: not counted from the send", left)
	}
	if outcomes[1].Renewed || !outcomes[1].Lost || !errors.Is(outcomes[1].Err, zkfence.ErrNotLockOwner) || !errors.Is(leases[1].LostReason(), zkfence.ErrNotLockOwner) {
		t.Fatalf("outcome 1: %+v", outcomes[1])
	}
	select {
	case l := <-calls:
		if l != leases[1] {
			t.Fatal("callback for the other lease")
		}
	case <-time.After(patience):
		t.Fatal("the lost callback did not run")
	}
	_, _ = leases[0].Release(background)
	_, _ = leases[1].Release(background)
})

var _ = scenario("batch-renewal-bad-input-refused", func(e *env) {
	t := e.t
	r := newScripted(t, byKind(func(n int) reply { return grant(fmt.Sprintf("lock-token-%d-0123456789abcdef", n), 30000, 0) }, nil))
	c, other := newClient(t, []string{r.url}, zkfence.Options{}), newClient(t, []string{r.url}, zkfence.Options{})
	opts := zkfence.AcquireOptions{TTL: 30 * time.Second, Wait: zkfence.NoWait, ManualRenew: true}
	var mine []*zkfence.Lease
	for i := 0; i < 3; i++ {
		l, err := c.Acquire(background, fmt.Sprintf("%s-%d", batchKeys[0], i), opts)
		if err != nil {
			t.Fatal(err)
		}
		mine = append(mine, l)
	}
	a, b, gone := mine[0], mine[1], mine[2]
	foreign, err := other.Acquire(background, batchKeys[1], opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gone.Release(background); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		leases []*zkfence.Lease
		says   string
	}{
		{nil, `at least one lease`},
		{[]*zkfence.Lease{}, `at least one lease`},
		{[]*zkfence.Lease{a, nil}, `leases\[1\] is nil`},
		{[]*zkfence.Lease{a, foreign}, `leases\[1\] .*another client`},
		{[]*zkfence.Lease{a, gone}, `leases\[1\] .*released`},
		{[]*zkfence.Lease{a, b, a}, `leases\[2\] is the same lease as leases\[0\]`},
	} {
		outcomes, err := c.RenewAll(background, bad.leases)
		if err == nil || outcomes != nil || !regexp.MustCompile(bad.says).MatchString(err.Error()) {
			t.Errorf("RenewAll(%v): %v, %v; want an error saying %s", bad.leases, outcomes, err, bad.says)
		}
	}
	if got := r.of("renew"); len(got) != 0 {
		t.Fatalf("%d renew requests were sent", len(got))
	}
	for _, l := range []*zkfence.Lease{a, b, foreign} {
		_, _ = l.Release(background)
	}
})

var _ = scenario("batch-renewal-split-under-1-mib", func(e *env) {
	t := e.t
	r := newScripted(t, func(kind string, req request, n int) reply {
		switch kind {
		case "acquire":
			return grant(fmt.Sprintf("t%04d", n)+strings.Repeat("x", 251), 30000, 0)
		case "renew":
			items, _ := req.body["leases"].([]any)
			results := make([]any, len(items))
			for i, item := range items {
				results[i] = map[string]any{"lockKey": item.(map[string]any)["lockKey"], "expiresAt": time.Now().UnixMilli() + 30000, "validForMillis": 30000}
			}
			return reply{status: 200, body: map[string]any{"results": results}}
		}
		return released
	})
	c := newClient(t, []string{r.url}, zkfence.Options{OwnerID: strings.Repeat("€", 256)})
	keys := make([]string, 1000)
	leases := make([]*zkfence.Lease, 1000)
	for i := range keys {
		keys[i] = fmt.Sprintf("conf:%04d-", i) + strings.Repeat("k", 190)
		l, err := c.Acquire(background, keys[i], zkfence.AcquireOptions{TTL: 30 * time.Second, Wait: zkfence.NoWait, ManualRenew: true})
		if err != nil {
			t.Fatal(err)
		}
		leases[i] = l
	}
	outcomes, err := c.RenewAll(background, leases)
	if err != nil {
		t.Fatal(err)
	}
	sent := r.of("renew")
	if len(sent) < 2 {
		t.Fatalf("%d request(s)", len(sent))
	}
	var carried []string
	total := 0
	for _, req := range sent {
		total += req.size
		items, _ := req.body["leases"].([]any)
		if req.size > 1024*1024 || len(items) > 1000 {
			t.Fatalf("a request of %d bytes and %d leases", req.size, len(items))
		}
		for _, item := range items {
			carried = append(carried, item.(map[string]any)["lockKey"].(string))
		}
	}
	if total <= 1024*1024 {
		t.Fatalf("the requests carried %d bytes in all: one request would have done", total)
	}
	if strings.Join(carried, ",") != strings.Join(keys, ",") {
		t.Fatalf("the requests carried %d keys, not the %d given in order", len(carried), len(keys))
	}
	for i, o := range outcomes {
		if !o.Renewed {
			t.Fatalf("outcome %d: %+v", i, o)
		}
	}
	for _, l := range leases {
		_, _ = l.Release(background)
	}
})

package zkfence

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// Version is this package's version, sent in the User-Agent header.
const Version = "0.1.0"

// maxKeyBytes is the service's limit on lock keys, in UTF-8 bytes.
const maxKeyBytes = 256

// NoWait as AcquireOptions.Wait: do not queue; an acquire of a held lock fails at once.
const NoWait time.Duration = -1

// Options configure a Client. Zero values take the defaults.
type Options struct {
	APIKey     string        // the service's bearer API key ("" for a service run with --no-auth)
	OwnerID    string        // who holds the locks, as the service shows it (default host-pid-random)
	Timeout    time.Duration // what a call may take beyond its own wait, retries included (default 10 s)
	HTTPClient *http.Client  // default: one of its own (a proxy, TLS with a private CA: bring yours)
	// Logger receives the client's log lines: level "debug", "info", "warn" or "error", a message
	// and fields (requestId, replica, ...). Default: nothing is logged. Never given a lockToken.
	Logger func(level, msg string, fields map[string]any)
}

// AcquireOptions configure one acquire. Zero values take the defaults.
type AcquireOptions struct {
	TTL         time.Duration // the lease's time to live (default 30 s)
	Wait        time.Duration // how long to wait in the queue (default 10 s; NoWait: do not queue)
	RequestID   string        // idempotency key (default: a new one, reused by every retry of this call)
	ManualRenew bool          // no background renewal: call Lease.Renew yourself
	OnLost      func(*Lease)  // called once, on its own goroutine, when the lease is lost
}

// LockOptions configure WithLock: an acquire's, and whether a lost lease is an error.
type LockOptions struct {
	AcquireOptions
	// IgnoreLoss: WithLock returns fn's result even if the lease was lost while fn ran. By
	// default it returns a *LeaseLostError then (after the release).
	IgnoreLoss bool
}

// LockStatus is what the service says about a lock now (GET /v1/locks/{key}).
type LockStatus struct {
	Key          string
	Locked       bool
	OwnerID      string
	FencingToken int64
	ExpiresAt    time.Time // on the replica's clock
	Waiters      []string  // their ownerIds, in queue order
}

// Client is a client of zkfence-server. Calls go to the replica that answered last (at first the
// first one); a connection error, a timeout or a 503 UNAVAILABLE / SHUTTING_DOWN sends the same
// request (same requestId) to the next replica, with jittered exponential back-off once every
// replica has failed, until the call's bound: an acquire's wait plus Timeout, Timeout for the
// other calls, a renewal's local deadline. Safe for concurrent use; one client is one owner.
type Client struct {
	replicas *replicas
	headers  map[string]string
	http     *http.Client
	timeout  time.Duration
	ownerID  string
	logger   func(level, msg string, fields map[string]any)
}

// NewClient makes a client of the replicas (their base URLs, or one load balancer's).
func NewClient(replicaURLs []string, opts Options) (*Client, error) {
	if len(replicaURLs) == 0 {
		return nil, errors.New("zkfence: replicas must be a non-empty list of URLs, e.g. []string{\"http://zkfence-a:8080\"}")
	}
	r := &replicas{rng: mrand.New(mrand.NewSource(time.Now().UnixNano()))}
	for _, u := range replicaURLs {
		clean, err := checkReplica(u)
		if err != nil {
			return nil, err
		}
		r.states = append(r.states, &replicaState{url: clean})
	}
	if opts.Timeout < 0 || (opts.Timeout > 0 && opts.Timeout < time.Millisecond) {
		return nil, fmt.Errorf("zkfence: Options.Timeout must be at least 1 ms, got %s", opts.Timeout)
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.OwnerID == "" {
		host, _ := os.Hostname()
		opts.OwnerID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), randomHex(3))
	} else if strings.TrimSpace(opts.OwnerID) == "" {
		return nil, errors.New("zkfence: Options.OwnerID must not be blank")
	}
	httpClient := opts.HTTPClient
	if httpClient == nil {
		httpClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	headers := map[string]string{"Accept": "application/json", "User-Agent": "zkfence-go/" + Version}
	if opts.APIKey != "" {
		headers["Authorization"] = "Bearer " + opts.APIKey
	}
	return &Client{replicas: r, headers: headers, http: httpClient, timeout: opts.Timeout, ownerID: opts.OwnerID, logger: opts.Logger}, nil
}

// OwnerID is who holds this client's locks, as the service shows it.
func (c *Client) OwnerID() string { return c.ownerID }

// Replicas are the replicas' URLs.
func (c *Client) Replicas() []string { return c.replicas.urls() }

// String shows the owner and replicas, never the API key.
func (c *Client) String() string {
	return fmt.Sprintf("zkfence.Client{ownerID: %q, replicas: %q}", c.ownerID, c.replicas.urls())
}

// GoString is String: %#v shows no API key either.
func (c *Client) GoString() string { return c.String() }

func (c *Client) log(level, msg string, fields map[string]any) {
	if c.logger != nil {
		c.logger(level, msg, fields)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func lockPath(key string) string { return "/v1/locks/" + url.PathEscape(key) }

func checkKey(key string) error {
	if strings.TrimSpace(key) == "" {
		return errors.New("zkfence: key must not be blank (like 'inventory-service:sku:123')")
	}
	if !utf8.ValidString(key) {
		return fmt.Errorf("zkfence: key %q is not well-formed UTF-8", key)
	}
	if n := len(key); n > maxKeyBytes {
		return fmt.Errorf("zkfence: key is %d UTF-8 bytes long; the service's limit is %d", n, maxKeyBytes)
	}
	return nil
}

// WithLock acquires key, runs fn and releases the lease when fn returns; it returns fn's error.
// fn's ctx is cancelled when the lease is lost (pass it to the work the lock guards). If the
// lease was lost while fn ran and fn returned nil, WithLock returns a *LeaseLostError after the
// release, unless opts.IgnoreLoss. A release failure after fn failed is logged; fn's error wins.
func (c *Client) WithLock(ctx context.Context, key string, opts LockOptions, fn func(ctx context.Context, lease *Lease) error) error {
	if fn == nil {
		return errors.New("zkfence: WithLock needs a function to run under the lock")
	}
	lease, err := c.Acquire(ctx, key, opts.AcquireOptions)
	if err != nil {
		return err
	}
	held, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-lease.Done():
			cancel()
		case <-held.Done():
		}
	}()
	err = fn(held, lease)
	cancel()
	var lost error
	if err == nil && !opts.IgnoreLoss && lease.State() == StateLost {
		lost = lease.lostError(true)
	}
	_, releaseErr := lease.Release(context.Background()) // not ctx: a cancelled caller still gives the lock back
	if err != nil {
		if releaseErr != nil {
			c.log("warn", fmt.Sprintf("release of '%s' after a failure under the lock failed too: %v", key, releaseErr), map[string]any{"key": key})
		}
		return err
	}
	if lost != nil {
		return lost
	}
	return releaseErr
}

// Acquire takes the lock key for opts.TTL, waiting in FIFO order up to opts.Wait. The lease
// renews itself in the background (every third of its current validity) unless
// opts.ManualRenew. Cancelling ctx cancels the acquire: the connection closes and the service
// drops the queue entry. Errors: ErrLockHeld if the lock stayed held, ErrUnavailable if no replica
// answered in time, the service's refusal, or ctx's error.
func (c *Client) Acquire(ctx context.Context, key string, opts AcquireOptions) (*Lease, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	ttl, wait := opts.TTL, opts.Wait
	if ttl == 0 {
		ttl = 30 * time.Second
	}
	if ttl < time.Millisecond {
		return nil, fmt.Errorf("zkfence: AcquireOptions.TTL must be at least 1 ms, got %s", opts.TTL)
	}
	switch {
	case wait == 0:
		wait = 10 * time.Second
	case wait == NoWait:
		wait = 0
	case wait < 0:
		return nil, fmt.Errorf("zkfence: AcquireOptions.Wait must be positive, 0 (the default) or NoWait, got %s", opts.Wait)
	}
	explicit := opts.RequestID != ""
	rid := opts.RequestID
	if !explicit {
		rid = randomHex(16)
	}
	path := lockPath(key)
	waitEnd := now() + wait
	until := waitEnd + c.timeout
	what := fmt.Sprintf("acquire of '%s'", key)
	ttlMillis := ttl.Milliseconds()
	if ttlMillis < 1 {
		ttlMillis = 1
	}
	for {
		request := rid
		body := func(at time.Duration) any {
			b := map[string]any{"ownerId": c.ownerID, "ttlMillis": ttlMillis, "requestId": request}
			if wait > 0 {
				left := (waitEnd - at).Milliseconds()
				if left < 0 {
					left = 0
				}
				b["wait"], b["waitMillis"] = true, left
			}
			return b
		}
		out, err := c.call(ctx, "POST", path+"/acquire", body, callSpec{until: until, what: what, key: key, rid: request})
		if err != nil {
			return nil, err
		}
		if out.ans.status == 200 {
			lease, err := c.granted(ctx, key, request, out, ttl, until, opts)
			if err != nil || lease != nil {
				return lease, err
			}
		} else {
			problem := fromProblem(out.ans.status, out.ans.body, what, key, out.ans.retryAfter)
			if problem.Kind == ErrTooManyWaiters {
				pause := problem.RetryAfter
				if pause == 0 {
					pause = 100 * time.Millisecond
				}
				if now()+pause >= waitEnd {
					return nil, problem
				}
				c.log("info", fmt.Sprintf("%s (requestId %s): the queue is full; trying again in %d ms", what, request, pause.Milliseconds()), map[string]any{"requestId": request})
				if err := sleep(ctx, pause); err != nil {
					return nil, err
				}
				continue
			}
			if !(problem.Kind == ErrRequestFinished && !explicit && out.attempts > 1) {
				return nil, problem
			}
			c.log("warn", fmt.Sprintf("%s (requestId %s): the request finished (%s) while its answer was lost; acquiring again with a new requestId", what, request, problem.Outcome), map[string]any{"requestId": request})
		}
		if now() >= until {
			return nil, &ServiceError{Kind: ErrLockHeld, Code: "LOCK_ALREADY_HELD", Key: key, Message: what + ": the lock could not be taken within the call's time bound"}
		}
		rid = randomHex(16)
	}
}

// granted makes the lease of a 200 answer, or returns nil, nil if the grant was over already.
func (c *Client) granted(ctx context.Context, key, rid string, out *outcome, ttl, until time.Duration, opts AcquireOptions) (*Lease, error) {
	grant := out.ans.body
	token, _ := grant["lockToken"].(string)
	fencing, ok := integer(grant["fencingToken"])
	expires, ok2 := integer(grant["expiresAt"])
	if token == "" || !ok || fencing <= 0 || !ok2 {
		return nil, &ServiceError{Kind: ErrServer, Code: "BAD_ANSWER", Key: key, Message: fmt.Sprintf("acquire of '%s': the grant lacks lockToken, fencingToken or expiresAt", key)}
	}
	sent := out.sent
	if _, has := grant["validForMillis"]; !has && out.earliestAmbiguous >= 0 && out.earliestAmbiguous < sent {
		// A service from before issue 29 counts the TTL from when it granted; an earlier attempt
		// of this request that got no answer may have been granted then, as early as it was sent.
		sent = out.earliestAmbiguous
	}
	valid := validity(grant, ttl)
	if sent+usable(valid) <= now() {
		// Granted so long ago (an answer lost while it waited) that the local deadline has passed:
		// renew once before handing the lease out, or start again if it is gone.
		body := map[string]any{"ownerId": c.ownerID, "lockToken": token, "ttlMillis": ttl.Milliseconds()}
		renewed, err := c.call(ctx, "POST", lockPath(key)+"/renew", func(time.Duration) any { return body },
			callSpec{until: until, what: fmt.Sprintf("renew of '%s'", key), key: key, secret: token})
		if err != nil {
			return nil, err
		}
		if renewed.ans.status != 200 {
			c.log("warn", fmt.Sprintf("acquire of '%s' (requestId %s): the grant had ended before its answer came (%v)", key, rid, renewed.ans.body["error"]), map[string]any{"requestId": rid})
			return nil, nil
		}
		sent, valid = renewed.sent, validity(renewed.ans.body, ttl)
	}
	c.log("debug", fmt.Sprintf("acquire of '%s' (requestId %s) granted, fencing token %d", key, rid, fencing), map[string]any{"requestId": rid})
	return newLease(c, key, rid, token, fencing, expires, sent+usable(valid), sent+valid/3, ttl, opts), nil
}

// validity is how long a lease lasts from its request's send: validForMillis, else the TTL.
func validity(body map[string]any, ttl time.Duration) time.Duration {
	if ms, ok := number(body["validForMillis"]); ok && ms >= 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	return ttl
}

// Status is the lock's holder and waiters now, as the service sees them (a linearizable read).
func (c *Client) Status(ctx context.Context, key string) (*LockStatus, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	what := fmt.Sprintf("status of '%s'", key)
	out, err := c.call(ctx, "GET", lockPath(key), nil, callSpec{until: now() + c.timeout, what: what, key: key})
	if err != nil {
		return nil, err
	}
	body := out.ans.body
	if out.ans.status == 200 || (out.ans.status == 404 && body["error"] == "NOT_LOCKED") {
		s := &LockStatus{Key: key, Locked: out.ans.status == 200}
		if s.Locked {
			s.OwnerID, _ = body["ownerId"].(string)
			s.FencingToken, _ = integer(body["fencingToken"])
			if ms, ok := integer(body["expiresAt"]); ok {
				s.ExpiresAt = time.UnixMilli(ms)
			}
		}
		if ws, ok := body["waiters"].([]any); ok {
			for _, w := range ws {
				switch v := w.(type) {
				case map[string]any:
					id, _ := v["ownerId"].(string)
					s.Waiters = append(s.Waiters, id)
				case string:
					s.Waiters = append(s.Waiters, v)
				}
			}
		}
		return s, nil
	}
	return nil, fromProblem(out.ans.status, body, what, key, out.ans.retryAfter)
}

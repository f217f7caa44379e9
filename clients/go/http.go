package zkfence

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// answer is one replica's answer: its status and JSON object body (numbers kept exact).
type answer struct {
	status     int
	body       map[string]any
	retryAfter string
}

// Why an attempt got no usable answer: never sent (unreached), sent but unanswered (noAnswer:
// the replica may have acted), or answered with something that is not the service's JSON.
type attemptError struct {
	kind  string // "unreached", "no answer", "bad answer"
	msg   string
	cause error
}

func (e *attemptError) Error() string { return e.msg }
func (e *attemptError) Unwrap() error { return e.cause }

func checkReplica(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("zkfence: replica URL %q must be http://host[:port] or https://host[:port]", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("zkfence: replica URL %q must not carry a query, fragment or user info (give Options.APIKey)", raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

// exchange sends one request and reads its answer within timeout; cancelling ctx closes the
// connection (a waiting acquire then leaves the service's queue) and returns ctx's error.
func (c *Client) exchange(ctx context.Context, replica, method, path string, body any, timeout time.Duration) (*answer, error) {
	attempt, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(attempt, method, replica+path, reader)
	if err != nil {
		return nil, &attemptError{kind: "unreached", msg: err.Error(), cause: err}
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if attempt.Err() != nil {
			return nil, &attemptError{kind: "no answer", msg: fmt.Sprintf("%s: no answer within %s", replica, timeout), cause: err}
		}
		if notSent(err) {
			return nil, &attemptError{kind: "unreached", msg: fmt.Sprintf("%s: %v", replica, err), cause: err}
		}
		return nil, &attemptError{kind: "no answer", msg: fmt.Sprintf("%s: %v", replica, err), cause: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &attemptError{kind: "no answer", msg: fmt.Sprintf("%s: %v", replica, err), cause: err}
	}
	var parsed map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if len(bytes.TrimSpace(raw)) == 0 {
		parsed = map[string]any{}
	} else if err := dec.Decode(&parsed); err != nil || parsed == nil {
		if resp.StatusCode == 502 || resp.StatusCode == 503 || resp.StatusCode == 504 {
			// Not the service's answer: something in front of a replica that did not answer.
			return nil, &attemptError{kind: "no answer", msg: fmt.Sprintf("%s: HTTP %d from something in front of the replica", replica, resp.StatusCode)}
		}
		return nil, &attemptError{kind: "bad answer", msg: fmt.Sprintf("%s answered HTTP %d with %d bytes that are not a JSON object", replica, resp.StatusCode, len(raw))}
	}
	return &answer{status: resp.StatusCode, body: parsed, retryAfter: resp.Header.Get("Retry-After")}, nil
}

// notSent tells a connection that was never made (the request cannot have reached the replica).
func notSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns) || errors.Is(err, syscall.ECONNREFUSED)
}

// number reads a JSON number (json.Number, as the decoder keeps them) as a float.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// integer reads a JSON number exactly as an int64 (a fencing token is 64 bits).
func integer(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	return i, err == nil
}

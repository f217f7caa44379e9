package zkfence

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The kinds of error, for errors.Is. A *ServiceError matches the sentinel of its code; a
// *LeaseLostError matches ErrLeaseLost; fence errors match ErrStaleToken,
// ErrSerializationConflict, ErrFenceTableMissing or ErrFence.
var (
	ErrLockHeld              = errors.New("zkfence: lock held")              // 409 LOCK_ALREADY_HELD
	ErrTooManyWaiters        = errors.New("zkfence: too many waiters")       // 429 TOO_MANY_WAITERS
	ErrRequestFinished       = errors.New("zkfence: request finished")       // 409 REQUEST_FINISHED
	ErrLeaseExpired          = errors.New("zkfence: lease expired")          // 409 LOCK_EXPIRED
	ErrNotLockOwner          = errors.New("zkfence: not lock owner")         // 403 NOT_LOCK_OWNER
	ErrForbidden             = errors.New("zkfence: forbidden")              // 403 NAMESPACE_FORBIDDEN, ADMIN_REQUIRED
	ErrUnauthorized          = errors.New("zkfence: unauthorized")           // 401
	ErrBadRequest            = errors.New("zkfence: bad request")            // 400
	ErrPayloadTooLarge       = errors.New("zkfence: payload too large")      // 413
	ErrUnavailable           = errors.New("zkfence: unavailable")            // no replica answered in time
	ErrServer                = errors.New("zkfence: server error")           // 500, an unknown code, not the service's JSON
	ErrLeaseLost             = errors.New("zkfence: lease lost")             // Lease.Check after the lease ended
	ErrFence                 = errors.New("zkfence: fence error")            // any fence failure
	ErrStaleToken            = errors.New("zkfence: stale fencing token")    // a newer holder has written
	ErrSerializationConflict = errors.New("zkfence: serialization conflict") // retry the unit of work, same token
	ErrFenceTableMissing     = errors.New("zkfence: fence table missing")
)

var kinds = map[string]error{
	"LOCK_ALREADY_HELD":   ErrLockHeld,
	"TOO_MANY_WAITERS":    ErrTooManyWaiters,
	"REQUEST_FINISHED":    ErrRequestFinished,
	"LOCK_EXPIRED":        ErrLeaseExpired,
	"NOT_LOCK_OWNER":      ErrNotLockOwner,
	"NAMESPACE_FORBIDDEN": ErrForbidden,
	"ADMIN_REQUIRED":      ErrForbidden,
	"UNAUTHORIZED":        ErrUnauthorized,
	"BAD_REQUEST":         ErrBadRequest,
	"PAYLOAD_TOO_LARGE":   ErrPayloadTooLarge,
	"UNAVAILABLE":         ErrUnavailable,
	"SHUTTING_DOWN":       ErrUnavailable,
}

// ServiceError is the lock service's refusal of a call, or ErrUnavailable when no replica
// answered within the call's bound (Cause: the last failure). Match its kind with errors.Is.
type ServiceError struct {
	Kind    error  // one of the Err* sentinels above
	Code    string // the service's stable code (LOCK_ALREADY_HELD, ...)
	Status  int    // the HTTP status; 0 when no replica answered
	Key     string // the lock key of the call
	Detail  string // the server's explanation (a lockToken in it is redacted)
	Message string
	// Owner (LOCK_ALREADY_HELD), RetryAfter (LOCK_ALREADY_HELD, TOO_MANY_WAITERS; 0: not said),
	// Outcome (REQUEST_FINISHED: RELEASED, EXPIRED, FORCE_RELEASED, GAVE_UP).
	Owner      string
	RetryAfter time.Duration
	Outcome    string
	Cause      error
}

func (e *ServiceError) Error() string        { return e.Message }
func (e *ServiceError) Unwrap() error        { return e.Cause }
func (e *ServiceError) Is(target error) bool { return target == e.Kind }

// LeaseLostError says a lease can no longer be trusted: stop writing with its fencing token.
// Reason is the service's refusal that ended it, the Unavailable error of the last renewal that
// got no answer, or nil (its local deadline passed, or it was released).
type LeaseLostError struct {
	Key          string
	FencingToken int64
	Reason       error
	Message      string
}

func (e *LeaseLostError) Error() string        { return e.Message }
func (e *LeaseLostError) Unwrap() error        { return e.Reason }
func (e *LeaseLostError) Is(target error) bool { return target == ErrLeaseLost }

// FenceError is a fence's failure to decide on a write: Kind is ErrStaleToken (Presented is
// below Stored: never retry with that token), ErrSerializationConflict (retry the whole unit of
// work in a new transaction with the same token), ErrFenceTableMissing or ErrFence. Cause is the
// driver's error, if any.
type FenceError struct {
	Kind      error
	Resource  string
	Presented int64
	Stored    int64 // ErrStaleToken only
	Message   string
	Cause     error
}

func (e *FenceError) Error() string { return e.Message }
func (e *FenceError) Unwrap() error { return e.Cause }
func (e *FenceError) Is(target error) bool {
	return target == e.Kind || target == ErrFence
}

// fromProblem makes the typed error of a problem+json answer; what names the call.
func fromProblem(status int, body map[string]any, what, key, retryAfterHeader string) *ServiceError {
	code, _ := body["error"].(string)
	if code == "" {
		code = "HTTP_" + strconv.Itoa(status)
	}
	detail, _ := body["detail"].(string)
	msg := fmt.Sprintf("%s: %d %s", what, status, code)
	if detail != "" {
		msg += ": " + detail
	}
	kind, ok := kinds[code]
	if !ok {
		kind = ErrServer
	}
	e := &ServiceError{Kind: kind, Code: code, Status: status, Key: key, Detail: detail, Message: msg}
	switch kind {
	case ErrLockHeld, ErrTooManyWaiters:
		e.Owner, _ = body["currentOwner"].(string)
		e.RetryAfter = retryAfter(body, retryAfterHeader)
	case ErrRequestFinished:
		e.Outcome, _ = body["outcome"].(string)
	}
	return e
}

// retryAfter is the problem's retryAfterMillis, else the Retry-After header (seconds), else 0.
func retryAfter(body map[string]any, header string) time.Duration {
	if n, ok := number(body["retryAfterMillis"]); ok && n >= 0 {
		return time.Duration(n * float64(time.Millisecond))
	}
	if s, err := strconv.ParseFloat(strings.TrimSpace(header), 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	return 0
}

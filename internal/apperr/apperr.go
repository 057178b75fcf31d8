// Package apperr is the one domain error type of greatbook: a code that the
// web layer maps to an HTTP status, a message that is safe to show to users,
// optional details for the API, and the wrapped cause for logs.
package apperr

import (
	"errors"
	"fmt"
)

// Code classifies an error. The web layer maps each code to a status in one
// place (web/httpkit/errors.go).
type Code string

// The codes of the API's errors, each listed with its status in docs/api.md
// (Conventions, "Errors").
const (
	Unauthorized           Code = "unauthorized"
	Forbidden              Code = "forbidden"
	NotFound               Code = "not_found"
	TooLarge               Code = "too_large"
	UnsupportedMediaType   Code = "unsupported_media_type"
	Invalid                Code = "invalid"
	DuplicateGroupConflict Code = "duplicate_group_conflict"
	InvalidState           Code = "invalid_state"
	SourceReplayConflict   Code = "source_replay_conflict"
	RateLimited            Code = "rate_limited"
	Unavailable            Code = "unavailable"
	Internal               Code = "internal"
)

// Error is a domain error. Message is shown to users; Cause is for logs.
type Error struct {
	Code    Code
	Message string
	// Details are extra fields of the API's error object ("blocking",
	// "differences", "reasons"), keyed by their JSON name.
	Details map[string]any
	Cause   error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// New returns an error with a code and a user-safe message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with a code and message that keeps cause for logs.
func Wrap(cause error, code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Cause: cause}
}

// With returns a copy of e with one more detail.
func (e *Error) With(key string, value any) *Error {
	c := *e
	c.Details = make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		c.Details[k] = v
	}
	c.Details[key] = value
	return &c
}

// CodeOf returns the code of the first *Error in err's chain, or Internal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// As returns the first *Error in err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Is reports whether err carries the given code.
func Is(err error, code Code) bool { return CodeOf(err) == code }

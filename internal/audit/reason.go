package audit

import (
	"greatbook/internal/apperr"
	"greatbook/internal/storable"
)

// MaxReason bounds the reason a person gives for an action the trail
// records (a rejection, "not a duplicate", an acknowledgement, a retry), in
// runes.
const MaxReason = 2000

// CheckReason refuses a reason too short to say anything (under three
// characters) or one the database could not store, as an invalid request
// naming the field "reason".
func CheckReason(reason string) error {
	if len([]rune(reason)) < 3 {
		return apperr.New(apperr.Invalid, "a reason is required").With("reasons", []map[string]string{{"field": "reason", "message": "is required"}})
	}
	if p := storable.Problem(reason, MaxReason); p != "" {
		return apperr.New(apperr.Invalid, "the reason %s", p).With("reasons", []map[string]string{{"field": "reason", "message": p}})
	}
	return nil
}

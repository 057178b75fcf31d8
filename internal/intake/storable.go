package intake

import (
	"greatbook/internal/apperr"
	"greatbook/internal/storable"
)

// checkFiling refuses a filing the database could not store, naming the
// column, before anything is written. Both stores call it, so the in-memory
// store refuses what PostgreSQL would (text without NUL, valid UTF-8, within
// bounds; fields and findings valid jsonb). The pipeline makes what it files
// storable first: this is the guard behind it.
func checkFiling(f Filing) error {
	for _, c := range []struct {
		column, value string
		max           int
	}{
		{"doc_type", f.DocType, 32}, {"source_ref", f.SourceRef, storable.MaxText}, {"content_key", f.ContentKey, storable.MaxKey},
		{"format", f.Format, 64}, {"profile", f.Profile, 64}, {"flag_reason", f.FlagReason, 64}, {"duplicate_reason", f.DuplicateReason, 64},
	} {
		if p := storable.Problem(c.value, c.max); p != "" {
			return apperr.New(apperr.Invalid, "intake: the filing's %s %s", c.column, p)
		}
	}
	for _, c := range []struct {
		column string
		value  []byte
	}{{"fields", f.Fields}, {"findings", f.Findings}} {
		if c.value == nil {
			continue
		}
		if p := storable.JSONProblem(c.value); p != "" {
			return apperr.New(apperr.Invalid, "intake: the filing's %s %s", c.column, p)
		}
	}
	return nil
}

// checkArrival refuses an arrival whose text columns the database could not
// store. (The filename is checked where it is read from the request.)
func checkArrival(a Arrival) error {
	for _, c := range []struct {
		column, value string
		max           int
	}{{"media_type", a.MediaType, 255}, {"received_by", a.Actor, 320}, {"received_via", a.Via, 32}} {
		if p := storable.Problem(c.value, c.max); p != "" {
			return apperr.New(apperr.Invalid, "intake: the arrival's %s %s", c.column, p)
		}
	}
	return nil
}

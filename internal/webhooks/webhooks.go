// Package webhooks delivers an org's events to the endpoints its admin
// registered, through the outbox: a dispatcher turns the committed event
// feed into deliveries (one per endpoint and event, in the transaction that
// advances the endpoint's cursor), and a pool of workers sends each one,
// signed, until a 2xx answers, retrying with capped backoff and jitter, and
// leaves it a dead letter after the last attempt. The deliveries are a
// table of the background-work queue (internal/queue), whose lanes are the
// endpoints: it claims, backs off, buries and revives them.
package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/events"
)

// Limits on what an admin registers.
const (
	MaxEventTypes   = 32
	MinSecretBytes  = 16
	MaxSecretBytes  = 256
	MaxEndpoints    = 20 // per org
	generatedSecret = 32 // random bytes of a generated secret
)

// Endpoint is a registered receiver of an org's events.
type Endpoint struct {
	ID         int64
	OrgID      int64
	URL        string
	EventTypes []string // empty: every type
	Enabled    bool
	CreatedBy  string
	CreatedAt  time.Time
	DisabledAt *time.Time
	Pending    int
	Dead       int
}

// Wants says whether the endpoint is sent events of type t.
func (e Endpoint) Wants(t string) bool {
	return len(e.EventTypes) == 0 || slices.Contains(e.EventTypes, t)
}

// Registration is what an admin submits.
type Registration struct {
	URL        string
	EventTypes []string
	// Secret signs the deliveries; empty: one is generated.
	Secret string
}

var eventTypePattern = regexp.MustCompile(`^[a-z][a-z_]*\.[a-z][a-z_]*$`)

// Register adds an endpoint and returns it with its secret, which is shown
// this once. The URL is checked against SSRF (see CheckURL). The new
// endpoint receives the events that happen after it is registered.
func (s *Service) Register(ctx context.Context, orgID int64, r Registration, actor audit.Actor) (Endpoint, string, error) {
	u, err := CheckURL(ctx, s.resolver(), r.URL, s.AllowPrivate)
	if err != nil {
		return Endpoint{}, "", err
	}
	types, err := cleanTypes(r.EventTypes)
	if err != nil {
		return Endpoint{}, "", err
	}
	secret := strings.TrimSpace(r.Secret)
	switch {
	case secret == "":
		b := make([]byte, generatedSecret)
		rand.Read(b)
		secret = "whsec_" + hex.EncodeToString(b)
	case len(secret) < MinSecretBytes || len(secret) > MaxSecretBytes:
		return Endpoint{}, "", apperr.New(apperr.Invalid, "the secret must be %d to %d characters (or empty, to generate one)", MinSecretBytes, MaxSecretBytes).
			With("reasons", []map[string]string{{"field": "secret", "message": "has the wrong length"}})
	}
	ep := Endpoint{OrgID: orgID, URL: u.String(), EventTypes: types, Enabled: true, CreatedBy: actor.Label}
	// Read before the transaction: events committed meanwhile are delivered
	// too (at least once, never fewer).
	head, err := feedHead(ctx, s.Pool, orgID)
	if err != nil {
		return Endpoint{}, "", err
	}
	err = database.WithTx(ctx, s.Pool, func(tx pgx.Tx) error {
		var n int
		// The org row lock serialises registrations, so the cap holds.
		if err := tx.QueryRow(ctx, countEnabledEndpointsSQL, orgID).Scan(&n); err != nil {
			return fmt.Errorf("webhooks: register: %w", err)
		}
		if n >= MaxEndpoints {
			return apperr.New(apperr.Invalid, "an org has at most %d enabled endpoints; disable one first", MaxEndpoints)
		}
		if err := tx.QueryRow(ctx, insertEndpointSQL, orgID, ep.URL, types, secret, head, actor.Label).
			Scan(&ep.ID, &ep.CreatedAt); err != nil {
			return fmt.Errorf("webhooks: register: %w", err)
		}
		return audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "webhook_registered",
			SubjectType: "webhook_endpoint", SubjectID: ep.ID, Detail: map[string]any{"url": ep.URL, "event_types": types}})
	})
	if err != nil {
		return Endpoint{}, "", err
	}
	return ep, secret, nil
}

func cleanTypes(in []string) ([]string, error) {
	out := []string{}
	for _, t := range in {
		for _, f := range strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
			if f == "*" {
				return []string{}, nil
			}
			if !eventTypePattern.MatchString(f) || len(f) > 64 || !slices.Contains(events.Types, f) {
				// A type the feed never shows (a typo) would never be
				// delivered: refused, never silently accepted.
				return nil, apperr.New(apperr.Invalid, "%q is not an event type; the types are %s", clipType(f), strings.Join(events.Types, ", ")).
					With("reasons", []map[string]string{{"field": "event_types", "message": "names an unknown type"}})
			}
			out = append(out, f)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > MaxEventTypes {
		return nil, apperr.New(apperr.Invalid, "at most %d event types", MaxEventTypes)
	}
	return out, nil
}

// Endpoints lists an org's endpoints, newest first, with how many of their
// deliveries wait and how many are dead letters.
func Endpoints(ctx context.Context, q database.Executor, orgID int64) ([]Endpoint, error) {
	rows, err := q.Query(ctx, endpointsSQL, orgID)
	if err != nil {
		return nil, fmt.Errorf("webhooks: endpoints: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Endpoint, error) {
		var e Endpoint
		err := r.Scan(&e.ID, &e.OrgID, &e.URL, &e.EventTypes, &e.Enabled, &e.CreatedBy, &e.CreatedAt, &e.DisabledAt, &e.Pending, &e.Dead)
		return e, err
	})
}

// Disable stops an endpoint: nothing more is queued or sent to it. Its
// waiting deliveries stay (and are sent if it is ever enabled again).
func (s *Service) Disable(ctx context.Context, orgID, endpointID int64, actor audit.Actor) error {
	return database.WithTx(ctx, s.Pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, disableEndpointSQL, orgID, endpointID, actor.Label)
		if err != nil {
			return fmt.Errorf("webhooks: disable: %w", err)
		}
		if tag.RowsAffected() == 0 {
			var exists bool
			if err := tx.QueryRow(ctx, endpointExistsSQL, orgID, endpointID).Scan(&exists); err != nil {
				return apperr.New(apperr.NotFound, "no webhook endpoint %d", endpointID)
			}
			return nil // already disabled
		}
		return audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "webhook_disabled",
			SubjectType: "webhook_endpoint", SubjectID: endpointID})
	})
}

// clipType keeps a refused type quoted in a message short.
func clipType(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// The headers of every delivery.
const (
	// SignatureHeader carries "t=<unix seconds>,v1=<hex HMAC-SHA256 of
	// secret over t + "." + body>", the way Stripe signs: the receiver
	// recomputes it with the endpoint's secret, compares in constant time
	// and refuses a t too far from its clock (a replay).
	SignatureHeader = "GreatBook-Signature"
	// SignatureV2Header carries "t=<unix seconds>,v2=<hex HMAC-SHA256 of
	// secret over t + "." + event id + "." + body>", made at the same t:
	// it covers the EventIDHeader too, so a receiver may trust the id it
	// de-duplicates on. It is a header of its own, beside SignatureHeader
	// (unchanged), so that a receiver verifying v1 goes on as it does.
	SignatureV2Header = "GreatBook-Signature-V2"
	// EventIDHeader is the event's id: the receiver's idempotency key, since
	// a delivery may arrive more than once.
	EventIDHeader = "GreatBook-Event-Id"
	// EventTypeHeader is the event's type.
	EventTypeHeader = "GreatBook-Event-Type"
)

// Signature is the value of SignatureHeader for body sent at t.
func Signature(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + sign(secret, ts, body)
}

// SignatureV2 is the value of SignatureV2Header for the event eventID
// with body sent at t. Event ids are hex digits, so the dots between the
// parts cannot be confused with a part.
func SignatureV2(secret string, t time.Time, eventID string, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v2=" + sign(secret, ts, []byte(eventID), body)
}

// sign is hex(HMAC-SHA256(secret, the parts joined by ".")).
func sign(secret, ts string, parts ...[]byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	for _, p := range parts {
		mac.Write([]byte("."))
		mac.Write(p)
	}
	return hex.EncodeToString(mac.Sum(nil))
}

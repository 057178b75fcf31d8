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
	// EventIDHeader is the event's id: the receiver's idempotency key, since
	// a delivery may arrive more than once.
	EventIDHeader = "GreatBook-Event-Id"
	// EventTypeHeader is the event's type.
	EventTypeHeader = "GreatBook-Event-Type"
)

// Signature is the value of SignatureHeader for body sent at t.
func Signature(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte("."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

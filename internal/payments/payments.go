// Package payments pays posted supplier invoices in runs: what is payable
// and what is blocked (and why), the four-eyes confirmation of a supplier's
// bank account, pay runs from proposal to approval to the ISO 20022
// pain.001.001.09 credit-transfer file, and the run's cancellation.
//
// An invoice is in at most one live item (in a run, sent or paid): the
// partial unique index payment_items_live_invoice decides, not a check made
// before inserting, so two admins proposing at once never both take it.
//
// A supplier's posted credit note is netted against the invoice it refers
// to: when its billing reference (BT-25) is the number of an invoice of the
// same supplier in the run, in the same currency and for less than the
// invoice, the invoice's item pays the difference and names the credit
// note, which a partial unique index keeps in at most one live item. A
// credit note that matches no such invoice is listed among the proposal's
// blocked documents (credit_note_not_netted) whenever the proposal holds or
// blocks an invoice of that supplier, so that a person deals with it; a
// credit note is never paid on its own.
//
// A supplier's IBAN blocks its invoices (iban_unconfirmed) when the supplier
// was paid before to another account and no admin confirmed this one. A
// supplier never paid before is not blocked by its first IBAN: the invoice's
// approval already vouched for the document that names it, and the desk's
// bank-account check (apchecks) warns when it differs from the supplier's
// earlier invoices.
package payments

import (
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/apchecks"
	"greatbook/internal/events"
)

// The reasons a posted document is not put in a run (docs/api.md, "Payments").
const (
	ReasonIBANInvalid     = "iban_invalid"
	ReasonIBANUnconfirmed = "iban_unconfirmed"
	ReasonNoIBAN          = "no_iban"
	ReasonNotEUR          = "not_eur"
	ReasonCreditNote      = "credit_note_not_netted"
)

// The statuses of a run.
const (
	RunProposed  = "proposed"
	RunApproved  = "approved"
	RunSent      = "sent"
	RunCancelled = "cancelled"
)

// The statuses of an item this package sets (paid and returned are the
// bank statement's).
const (
	ItemInRun     = "in_run"
	ItemRemoved   = "removed"
	ItemCancelled = "cancelled"
	ItemSent      = "sent"
)

// The audit actions of pay runs and bank-account confirmations; the event
// feed shows the run's as payment.* events.
const (
	ActionRunProposed   = events.ActionPaymentRunProposed
	ActionRunApproved   = events.ActionPaymentRunApproved
	ActionRunSent       = events.ActionPaymentRunSent
	ActionRunCancelled  = events.ActionPaymentRunCancelled
	ActionItemRemoved   = "payment_item_removed"
	ActionIBANConfirmed = "supplier_iban_confirmed"
)

// Currency is the one currency a SEPA credit transfer pays in.
const Currency = "EUR"

// Creditor is whom an item pays.
type Creditor struct {
	Name string `json:"name"`
	IBAN string `json:"iban"`
	BIC  string `json:"bic"`
}

// Blocked is a posted document a proposal did not take, and why.
type Blocked struct {
	IntakeID int64  `json:"intake_id"`
	Reason   string `json:"reason"`
	// What the run page shows beside it.
	Number   string `json:"-"`
	Supplier string `json:"-"`
	IBAN     string `json:"-"` // masked
}

// payable is a posted document as the proposal reads it.
type payable struct {
	intakeID    int64
	docType     string
	supplierKey string
	number      string
	name        string
	currency    string
	amount      decimal.Decimal
	dueDate     string
	iban, bic   string
	// billingRef is a credit note's reference to the invoice it credits.
	billingRef string
	// creditNote and credited are the credit note netted against an
	// invoice, and its amount (already taken off amount).
	creditNote int64
	credited   decimal.Decimal
}

// supplierKey is the bookkeeper's key of a supplier: the source_ref up to
// its first "/".
func supplierKey(sourceRef string) string {
	key, _, _ := strings.Cut(sourceRef, "/")
	return key
}

// accounts are what a proposal knows of suppliers' bank accounts: the
// account each was last paid to, and the accounts admins confirmed.
type accounts struct {
	lastPaid  map[string]string
	confirmed map[string]bool // supplier key + " " + IBAN
	// corrections are the accounts admins confirmed in place of the IBAN
	// an invoice states: supplier key + " " + stated IBAN → confirmed IBAN.
	corrections map[string]string
}

// correct pays d to the account an admin confirmed in place of the one it
// states, if there is one.
func (acc accounts) correct(d payable) payable {
	if iban, ok := acc.corrections[d.supplierKey+" "+d.iban]; ok && d.iban != "" {
		d.iban, d.bic = iban, ""
	}
	return d
}

// classify splits the posted documents into what a run due until dueUntil
// pays and what it blocks; documents not yet due, or with nothing to pay,
// are neither.
func classify(docs []payable, dueUntil time.Time, acc accounts) (pay []payable, blocked []Blocked) {
	due := dueUntil.Format(time.DateOnly)
	suppliers := map[string]bool{}
	var notes []payable
	for _, d := range docs {
		if d.docType == "credit_note" {
			notes = append(notes, d)
			continue
		}
		if !d.amount.IsPositive() || (validDate(d.dueDate) && d.dueDate > due) {
			continue
		}
		suppliers[d.supplierKey] = true
		d = acc.correct(d)
		if reason := blockReason(d, acc); reason != "" {
			blocked = append(blocked, Blocked{IntakeID: d.intakeID, Reason: reason, Number: d.number, Supplier: d.name,
				IBAN: maskIfAny(d.iban)})
			continue
		}
		pay = append(pay, d)
	}
	netted := net(pay, notes)
	for _, n := range notes {
		if suppliers[n.supplierKey] && !netted[n.intakeID] {
			blocked = append(blocked, Blocked{IntakeID: n.intakeID, Reason: ReasonCreditNote, Number: n.number, Supplier: n.name})
		}
	}
	return pay, blocked
}

// net takes each credit note off the invoice it refers to, where that
// invoice is paid, of the same supplier and currency, and owes more than the
// note; an invoice takes at most one note (the earliest). It returns the
// notes it netted.
func net(pay, notes []payable) map[int64]bool {
	netted := map[int64]bool{}
	byNumber := map[string]int{}
	for i, p := range pay {
		byNumber[p.supplierKey+" "+p.number] = i
	}
	for _, n := range notes {
		i, ok := byNumber[n.supplierKey+" "+n.billingRef]
		if !ok || n.billingRef == "" || pay[i].creditNote != 0 || n.currency != pay[i].currency ||
			!n.amount.IsPositive() || !n.amount.LessThan(pay[i].amount) {
			continue
		}
		pay[i].creditNote, pay[i].credited = n.intakeID, n.amount
		pay[i].amount = pay[i].amount.Sub(n.amount)
		netted[n.intakeID] = true
	}
	return netted
}

func blockReason(d payable, acc accounts) string {
	switch {
	case d.currency != Currency:
		return ReasonNotEUR
	case d.iban == "":
		return ReasonNoIBAN
	case !validIBAN(d.iban):
		return ReasonIBANInvalid
	}
	last, paidBefore := acc.lastPaid[d.supplierKey]
	if paidBefore && last != d.iban && !acc.confirmed[d.supplierKey+" "+d.iban] {
		return ReasonIBANUnconfirmed
	}
	return ""
}

func maskIfAny(iban string) string {
	if iban == "" {
		return ""
	}
	return apchecks.MaskIBAN(iban)
}

var (
	bicPattern  = regexp.MustCompile(`^[A-Z0-9]{8}([A-Z0-9]{3})?$`)
	datePattern = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// validIBAN reports whether a normalised IBAN is one (apchecks.ValidIBAN).
func validIBAN(iban string) bool {
	_, err := apchecks.ValidIBAN(iban)
	return err == nil
}

func validDate(s string) bool {
	if !datePattern.MatchString(s) {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

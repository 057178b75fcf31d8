// Package apchecks makes the checks every accounts-payable desk makes on a
// supplier invoice before paying it: is it addressed to us, is its date
// plausible, was it overdue when it arrived, and does the supplier ask to be
// paid to the bank account it used before. Each result is a warning finding
// in plain words: it never blocks an approval and never flags a document.
//
// The checks run when a document is read, not when it is filed: two of them
// depend on what changes after filing (the org's identity, set by an admin at
// any time, and the supplier's posted invoices, which grow as the ledger
// does), and a stored verdict would go stale. Every input is a stored fact
// (the fields, received_at, the org's settings, the posted documents), so a
// document reads the same findings until one of those facts changes.
package apchecks

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"greatbook/internal/einvoice"
)

// Finding codes of the AP checks: the product's own codes, listed in
// docs/api.md ("A document as the API shows it").
const (
	CodeBuyerNotThisOrg  = "buyer_not_this_org"
	CodeIssueDateOld     = "issue_date_far_in_past"
	CodeIssueDateFuture  = "issue_date_in_future"
	CodeDueAtArrival     = "due_date_passed_at_arrival"
	CodeSupplierIBANDiff = "supplier_iban_changed"
	// The supplier's IBAN is not a valid one: a character outside A-Z and
	// 0-9 (a Cyrillic or full-width look-alike), the wrong length for its
	// country, or check digits that do not match the rest.
	CodeIBANCharacters = "supplier_iban_invalid_characters"
	CodeIBANLength     = "supplier_iban_wrong_length"
	CodeIBANChecksum   = "supplier_iban_checksum_failed"
)

// Org is what the checks need to know of the org reading the document.
type Org struct {
	LegalName string
	VATID     string
	// MaxIssueAgeMonths is the age past which an issue date is far in the past.
	MaxIssueAgeMonths int
	// Address is the org's postal address: compared with the buyer's when
	// neither the VAT id nor the name decides.
	Address einvoice.Address
}

// PreviousAccount is a bank account the supplier was paid to on posted
// invoices before this one: the normalised IBAN and the documents (newest
// first) that carried it.
type PreviousAccount struct {
	IBAN      string
	Documents []int64
}

// BankChange is the payment-fraud signal: the document asks to be paid to an
// account none of the supplier's posted invoices used.
type BankChange struct {
	IBAN     string // this document's, normalised
	Previous []PreviousAccount
}

// Report is what the checks found on one document.
type Report struct {
	Findings   []einvoice.Finding
	BankChange *BankChange
}

// Input is one document and the facts around it.
type Input struct {
	Document   einvoice.Document
	ReceivedAt time.Time
	Org        Org
	// Previous are the accounts of the same supplier's earlier posted invoices.
	Previous []PreviousAccount
}

// Check runs every check on in.
func Check(in Input) Report {
	var r Report
	if f, ok := buyer(in.Document.Buyer, in.Org); ok {
		r.Findings = append(r.Findings, f)
	}
	r.Findings = append(r.Findings, dates(in.Document, in.ReceivedAt, in.Org.MaxIssueAgeMonths)...)
	if f, ok := ibanFinding(in.Document.PayeeIBAN); ok {
		r.Findings = append(r.Findings, f)
	}
	if change := bankChange(in.Document.PayeeIBAN, in.Previous); change != nil {
		r.BankChange = change
		r.Findings = append(r.Findings, einvoice.Finding{Code: CodeSupplierIBANDiff, Severity: einvoice.SeverityWarning,
			Field: "payee_iban", Message: change.Explain()})
	}
	return r
}

func warning(code, field, format string, args ...any) einvoice.Finding {
	return einvoice.Finding{Code: code, Severity: einvoice.SeverityWarning, Field: field, Message: fmt.Sprintf(format, args...)}
}

// buyer warns when the invoice's buyer is not the org: its VAT id differs
// from the org's (when both are known), else its name differs (when both
// are known), else its postal address differs (when both are known). With
// no identity set the org has said nothing to compare with, and so has this.
func buyer(b einvoice.Party, o Org) (einvoice.Finding, bool) {
	if strings.TrimSpace(o.VATID) != "" && strings.TrimSpace(b.VATID) != "" {
		if SameVATID(o.VATID, b.VATID) {
			return einvoice.Finding{}, false
		}
		return warning(CodeBuyerNotThisOrg, "buyer.vat_id",
			"The invoice is addressed to VAT id %s, but this org's VAT id is %s: check that it is meant for us before paying it.",
			b.VATID, o.VATID), true
	}
	if name, theirs := NormalizeName(o.LegalName), NormalizeName(b.Name); name != "" && theirs != "" {
		if name == theirs {
			return einvoice.Finding{}, false
		}
		return warning(CodeBuyerNotThisOrg, "buyer.name",
			"The invoice is addressed to %q, but this org's legal name is %q: check that it is meant for us before paying it.",
			b.Name, o.LegalName), true
	}
	return address(b.Address, o.Address)
}

// address compares the buyer's postal address with the org's, part by part
// where both state it: the country, then the postcode, and the city only
// when there is no postcode to compare. Street lines are not compared: one
// street has too many spellings ("Str.", "Straße") for a difference to mean
// another company.
func address(theirs, ours einvoice.Address) (einvoice.Finding, bool) {
	differ := func(field, a, b string, fold func(string) string) (einvoice.Finding, bool) {
		if fa, fb := fold(a), fold(b); fa != "" && fb != "" && fa != fb {
			return warning(CodeBuyerNotThisOrg, "buyer.address",
				"The invoice is addressed to %s %s, but this org's address has %s: check that it is meant for us before paying it.",
				field, strings.TrimSpace(a), strings.TrimSpace(b)), true
		}
		return einvoice.Finding{}, false
	}
	if f, ok := differ("country", theirs.Country, ours.Country, NormalizeVATID); ok {
		return f, ok
	}
	if NormalizeVATID(theirs.Postcode) != "" && NormalizeVATID(ours.Postcode) != "" {
		return differ("postcode", theirs.Postcode, ours.Postcode, NormalizeVATID)
	}
	return differ("city", theirs.City, ours.City, NormalizeName)
}

// dates warns of an issue date older than maxAgeMonths or after the day
// following arrival (time zones: a supplier ahead of us may date tomorrow),
// and of a due date that had passed when the document arrived (unless it is
// before the issue date: prepaid). Dates are
// compared as calendar days in UTC.
func dates(d einvoice.Document, receivedAt time.Time, maxAgeMonths int) []einvoice.Finding {
	var out []einvoice.Finding
	arrival := receivedAt.UTC().Truncate(24 * time.Hour)
	if maxAgeMonths <= 0 {
		maxAgeMonths = 18
	}
	issue, issueErr := time.Parse(time.DateOnly, d.IssueDate)
	if issueErr == nil {
		oldest := arrival.AddDate(0, -maxAgeMonths, 0)
		switch {
		case issue.Before(oldest):
			out = append(out, warning(CodeIssueDateOld, "issue_date",
				"The invoice is dated %s, more than %d months before it arrived on %s: an old invoice may have been paid already or be sent again by mistake.",
				d.IssueDate, maxAgeMonths, arrival.Format(time.DateOnly)))
		case issue.After(arrival.AddDate(0, 0, 1)):
			out = append(out, warning(CodeIssueDateFuture, "issue_date",
				"The invoice is dated %s, in the future: it arrived on %s. Check the date with the supplier.",
				d.IssueDate, arrival.Format(time.DateOnly)))
		}
	}
	// A due date before the issue date is a prepaid invoice (einvoice warns of
	// it as due_before_issue): it was never overdue.
	prepaid := func(due time.Time) bool { return issueErr == nil && due.Before(issue) }
	if due, err := time.Parse(time.DateOnly, d.DueDate); err == nil && due.Before(arrival) && !prepaid(due) {
		out = append(out, warning(CodeDueAtArrival, "due_date",
			"The invoice was due on %s, before it arrived on %s: it is overdue already, so pay it promptly or ask the supplier about late fees.",
			d.DueDate, arrival.Format(time.DateOnly)))
	}
	return out
}

// bankChange compares iban with the accounts of the supplier's previous
// posted invoices: nil when there is nothing to compare or it is one of them.
func bankChange(iban string, previous []PreviousAccount) *BankChange {
	iban = NormalizeIBAN(iban)
	if iban == "" || len(previous) == 0 {
		return nil
	}
	for _, p := range previous {
		if p.IBAN == iban {
			return nil
		}
	}
	return &BankChange{IBAN: iban, Previous: previous}
}

// Masks are the change's accounts masked so that each still tells itself
// apart from the others (MaskIBANs): this document's, and the previous ones
// in order.
func (c BankChange) Masks() (current string, previous []string) {
	ibans := make([]string, 0, 1+len(c.Previous))
	ibans = append(ibans, c.IBAN)
	for _, p := range c.Previous {
		ibans = append(ibans, p.IBAN)
	}
	masks := MaskIBANs(ibans...)
	return masks[0], masks[1:]
}

// Explain says what the change is, in plain words, naming the previous
// accounts masked and the documents they came from.
func (c BankChange) Explain() string {
	current, previous := c.Masks()
	parts := make([]string, 0, len(c.Previous))
	for i, p := range c.Previous {
		ids := make([]string, 0, len(p.Documents))
		for _, id := range p.Documents {
			ids = append(ids, fmt.Sprintf("#%d", id))
		}
		parts = append(parts, fmt.Sprintf("%s (on %s)", previous[i], strings.Join(ids, ", ")))
	}
	return fmt.Sprintf("This supplier asks to be paid to bank account %s, but its posted invoices were paid to %s. "+
		"A changed bank account is how payment fraud usually looks: confirm the change with the supplier by phone, "+
		"using a number you already had, before paying.", current, strings.Join(parts, "; "))
}

// NormalizeIBAN is an IBAN without spaces (and other separators), upper case.
func NormalizeIBAN(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r) || r == '-' || r == '.':
			return -1
		}
		return unicode.ToUpper(r)
	}, norm.NFKC.String(s))
}

// MaskIBAN names an account without handing it out: its country code and
// check digits and its last four characters, "DE89 •••• 3000".
func MaskIBAN(iban string) string { return MaskIBANs(iban)[0] }

// maskedTail is the fewest trailing characters a mask shows.
const maskedTail = 4

// MaskIBANs masks several accounts named side by side so that no two
// different ones read alike: each shows its country code and check digits
// and its last four characters, and where that leaves two alike, all show
// as many more trailing characters as it takes to tell them apart (an
// account is shown whole when nothing less does).
func MaskIBANs(ibans ...string) []string {
	normal := make([]string, len(ibans))
	longest := 0
	for i, iban := range ibans {
		normal[i] = NormalizeIBAN(iban)
		longest = max(longest, utf8.RuneCountInString(normal[i]))
	}
	out := make([]string, len(ibans))
	for tail := maskedTail; ; tail++ {
		byMask := map[string]string{}
		distinct := true
		for i, iban := range normal {
			out[i] = maskIBAN(iban, tail)
			if other, seen := byMask[out[i]]; seen && other != iban {
				distinct = false
			}
			byMask[out[i]] = iban
		}
		if distinct || tail >= longest {
			return out
		}
	}
}

// maskIBAN shows iban's country code and check digits and its last tail
// characters; an IBAN too short to hide anything that way is all bullets.
func maskIBAN(iban string, tail int) string {
	r := []rune(iban)
	switch {
	case len(r) <= maskedTail:
		return strings.Repeat("•", len(r))
	case len(r) <= 2*maskedTail:
		return "•••• " + string(r[len(r)-min(tail, len(r)-1):])
	case tail >= len(r)-maskedTail:
		return string(r)
	}
	return string(r[:maskedTail]) + " •••• " + string(r[len(r)-tail:])
}

// SameVATID reports whether two VAT ids name one company: compared upper
// case without spaces, dots and dashes, and without the two-letter country
// prefix when only one of them states it ("de 123.456.789", "DE123456789"
// and "123456789" are one; DE123456789 and AT123456789 are two).
func SameVATID(a, b string) bool {
	a, b = NormalizeVATID(a), NormalizeVATID(b)
	if a == b {
		return true
	}
	ca, ra := splitCountry(a)
	cb, rb := splitCountry(b)
	return (ca == "" || cb == "") && ra == rb
}

// NormalizeVATID is a VAT id upper case, without spaces, dots, dashes and slashes.
func NormalizeVATID(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '.' || r == '-' || r == '/' {
			return -1
		}
		return unicode.ToUpper(r)
	}, norm.NFKC.String(s))
}

// splitCountry splits a normalised VAT id into its country prefix ("" when
// it starts with no two letters) and the rest.
func splitCountry(s string) (country, rest string) {
	if len(s) > 2 && isLetter(s[0]) && isLetter(s[1]) {
		return s[:2], s[2:]
	}
	return "", s
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' }

// legalForms are company-form suffixes and prefixes that do not tell two
// companies apart ("Acme GmbH" is "ACME"); compared after punctuation is
// dropped and case folded.
var legalForms = map[string]bool{
	"gmbh": true, "ag": true, "kg": true, "ohg": true, "ug": true, "co": true, "kgaa": true, "ev": true,
	"ltd": true, "limited": true, "plc": true, "llc": true, "llp": true, "inc": true, "corp": true,
	"corporation": true, "company": true, "sa": true, "sas": true, "sarl": true, "srl": true, "spa": true,
	"bv": true, "nv": true, "ab": true, "as": true, "asa": true, "oy": true, "oyj": true, "aps": true,
	"sl": true, "se": true, "the": true, "and": true, "mbh": true, "haftungsbeschränkt": true,
}

// NormalizeName is a company name folded for a loose comparison: NFKC,
// lower case, punctuation dropped ("Co." and "co" are one), and legal-form
// words such as GmbH, Ltd or "& Co. KG" left out.
func NormalizeName(s string) string {
	s = strings.ToLower(norm.NFKC.String(s))
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r):
			return r
		case r == '&' || r == ',' || r == '-' || r == '/':
			return ' '
		}
		return -1 // "." in "Co." or "e.V.", apostrophes
	}, s)
	var words []string
	for _, w := range strings.Fields(s) {
		if !legalForms[w] {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}

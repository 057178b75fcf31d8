// Package bankstatement reads a bank's statements of an org's account
// (ISO 20022 camt.053.001.08, and camt.054.001.08 notifications) and
// reconciles their booked entries with the org's payment items: a booked
// debit naming an item's EndToEndId pays it, a returned payment releases
// it. Nothing is guessed: an entry that names no item is stored unmatched.
package bankstatement

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
)

// Caps of one statement: a hostile upload costs at most linear work in
// MaxBytes, whatever its shape.
const (
	MaxBytes    = 8 << 20
	MaxDepth    = 32
	MaxElements = 400_000
	MaxEntries  = 50_000
	maxText     = 1000
)

// Direction is an entry's side from the account holder's view.
const (
	Debit  = "debit"
	Credit = "credit"
)

// Entry is one line of a statement to reconcile: an entry (Ntry), or one
// transaction of an entry that books several (a batch booking), with what
// reconciliation reads from its transaction details.
type Entry struct {
	Amount      decimal.Decimal
	Currency    string
	Direction   string // Debit or Credit
	Status      string // Sts/Cd: BOOK, PDNG, INFO
	BookingDate string // YYYY-MM-DD
	AcctSvcrRef string
	// EndToEndID is the transaction's EndToEndId: a payment's own, and on
	// a return the returned payment's (camt.053.001.08 has no other field
	// for it, and banks copy it there).
	EndToEndID string
	// ReturnReason is RtrInf/Rsn/Cd of a returned payment, "" otherwise.
	ReturnReason string
	// Unsplit marks an entry of several transactions that could not be
	// split into lines (a transaction without an amount in the entry's
	// currency, or amounts that do not add up to the entry's): it names no
	// payment, so it is left to a person.
	Unsplit bool
}

// Booked reports whether the bank booked the entry (not pending or info).
func (e Entry) Booked() bool { return e.Status == "BOOK" }

// IsReturn reports whether the entry gives back a payment of the org.
func (e Entry) IsReturn() bool { return e.Direction == Credit && e.ReturnReason != "" }

// The message types Parse reads.
const (
	Camt053 = "camt.053.001.08"
	Camt054 = "camt.054.001.08"
)

// Statement is a parsed statement (or notification).
type Statement struct {
	MessageType string // Camt053 or Camt054
	ID          string // Stmt/Id or Ntfctn/Id
	Entries     []Entry
}

func refuse(format string, args ...any) error {
	return apperr.New(apperr.Invalid, "bank statement: "+format, args...)
}

// Parse reads a camt.053.001.08 statement or camt.054.001.08 notification.
// It refuses, as invalid, input over MaxBytes, with NUL bytes or invalid
// UTF-8, with a DTD or entity declarations, nested deeper than MaxDepth or
// with more than MaxElements elements, and entries it cannot read.
func Parse(b []byte) (Statement, error) {
	if len(b) > MaxBytes {
		return Statement{}, refuse("larger than %d bytes", MaxBytes)
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return Statement{}, refuse("contains a NUL byte")
	}
	if !utf8.Valid(b) {
		return Statement{}, refuse("is not valid UTF-8")
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	// Only the predefined entities: a custom one would need a DTD, which is refused.
	d.Entity = nil
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		if strings.EqualFold(label, "utf-8") {
			return r, nil
		}
		return nil, fmt.Errorf("encoding %q is not UTF-8", label)
	}
	p := parser{}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Statement{}, refuse("not well-formed XML: %v", err)
		}
		if err := p.token(tok); err != nil {
			return Statement{}, err
		}
	}
	if p.root == "" {
		return Statement{}, refuse("no document element")
	}
	if p.root != Camt053 && p.root != Camt054 {
		return Statement{}, refuse("the document is not %s or %s", Camt053, Camt054)
	}
	if !p.sawStatement {
		return Statement{}, refuse("no statement (Stmt or Ntfctn)")
	}
	p.st.MessageType = p.root
	return p.st, nil
}

// parser walks the tokens keeping the path of local names; it reads
// character data only at the paths it knows.
type parser struct {
	path         []string
	elements     int
	root         string
	sawStatement bool
	st           Statement
	cur          *Entry        // the entry (Ntry) being read
	txs          []transaction // its transaction details (TxDtls)
	text         strings.Builder
}

// transaction is what an entry's transaction details (TxDtls) say.
type transaction struct {
	amount       decimal.Decimal
	currency     string
	hasAmount    bool
	endToEndID   string
	returnReason string
}

func (p *parser) token(tok xml.Token) error {
	switch t := tok.(type) {
	case xml.Directive:
		return refuse("a DTD or other declaration is not allowed")
	case xml.StartElement:
		p.elements++
		if p.elements > MaxElements {
			return refuse("more than %d elements", MaxElements)
		}
		if len(p.path) >= MaxDepth {
			return refuse("nested deeper than %d elements", MaxDepth)
		}
		if len(p.path) == 0 {
			if p.root != "" {
				return refuse("more than one document element")
			}
			if t.Name.Local != "Document" {
				return refuse("the document element is %q, not Document", clip(t.Name.Local))
			}
			p.root = strings.TrimPrefix(t.Name.Space, "urn:iso:std:iso:20022:tech:xsd:")
			if p.root != Camt053 && p.root != Camt054 {
				return refuse("the document is not %s or %s", Camt053, Camt054)
			}
		}
		p.path = append(p.path, t.Name.Local)
		p.text.Reset()
		return p.start(t)
	case xml.CharData:
		if p.text.Len()+len(t) > maxText {
			return refuse("a text of more than %d bytes at %s", maxText, strings.Join(p.path, "/"))
		}
		p.text.Write(t)
	case xml.EndElement:
		err := p.end(strings.TrimSpace(p.text.String()))
		p.text.Reset()
		p.path = p.path[:len(p.path)-1]
		return err
	}
	return nil
}

// at reports whether the path ends with the given names.
func (p *parser) at(names ...string) bool {
	if len(p.path) < len(names) {
		return false
	}
	tail := p.path[len(p.path)-len(names):]
	for i, n := range names {
		if tail[i] != n {
			return false
		}
	}
	return true
}

// inStatement reports whether the path is Document/<message>/<statement>
// followed by names.
func (p *parser) inStatement(names ...string) bool {
	return len(p.path) == 3+len(names) && p.at(names...) &&
		(p.path[1] == "BkToCstmrStmt" && p.path[2] == "Stmt" || p.path[1] == "BkToCstmrDbtCdtNtfctn" && p.path[2] == "Ntfctn")
}

// inEntry reports whether the path is an entry's (Ntry) followed by names.
func (p *parser) inEntry(names ...string) bool {
	return p.cur != nil && p.inStatement(append([]string{"Ntry"}, names...)...)
}

// inTransaction reports whether the path is the current transaction's
// (Ntry/NtryDtls/TxDtls) followed by names.
func (p *parser) inTransaction(names ...string) bool {
	return len(p.txs) > 0 && p.inEntry(append([]string{"NtryDtls", "TxDtls"}, names...)...)
}

func currencyOf(t xml.StartElement) string {
	for _, a := range t.Attr {
		if a.Name.Local == "Ccy" {
			return a.Value
		}
	}
	return ""
}

func (p *parser) start(t xml.StartElement) error {
	switch {
	case p.inStatement():
		p.sawStatement = true
	case p.inStatement("Ntry"):
		if len(p.st.Entries) >= MaxEntries {
			return refuse("more than %d entries", MaxEntries)
		}
		p.cur = &Entry{}
		p.txs = p.txs[:0]
	case p.inEntry("Amt"):
		p.cur.Currency = currencyOf(t)
	case p.inEntry("NtryDtls", "TxDtls"):
		if len(p.txs) >= MaxEntries {
			return refuse("more than %d transactions in an entry", MaxEntries)
		}
		p.txs = append(p.txs, transaction{})
	case p.inTransaction("Amt"), p.inTransaction("AmtDtls", "TxAmt", "Amt"):
		tx := &p.txs[len(p.txs)-1]
		if !tx.hasAmount {
			tx.currency = currencyOf(t)
		}
	}
	return nil
}

func (p *parser) end(text string) error {
	if p.cur == nil {
		if p.inStatement("Id") {
			p.st.ID = text
		}
		return nil
	}
	e := p.cur
	n := len(p.st.Entries) + 1
	var tx *transaction
	if len(p.txs) > 0 {
		tx = &p.txs[len(p.txs)-1]
	}
	switch {
	case p.inStatement("Ntry"):
		p.cur = nil
		return p.addEntry(*e)
	case p.inEntry("Amt"):
		a, err := amount(text)
		if err != nil {
			return refuse("entry %d: amount %q is not a positive amount", n, clip(text))
		}
		e.Amount = a
	case p.inEntry("CdtDbtInd"):
		switch text {
		case "DBIT":
			e.Direction = Debit
		case "CRDT":
			e.Direction = Credit
		default:
			return refuse("entry %d: CdtDbtInd %q is neither DBIT nor CRDT", n, clip(text))
		}
	case p.inEntry("Sts", "Cd"), p.inEntry("Sts", "Prtry"):
		e.Status = text
	case p.inEntry("BookgDt", "Dt"):
		e.BookingDate = text
	case p.inEntry("BookgDt", "DtTm"):
		if e.BookingDate == "" && len(text) >= 10 {
			e.BookingDate = text[:10]
		}
	case p.inEntry("AcctSvcrRef"):
		e.AcctSvcrRef = text
	case p.inTransaction("Amt"), p.inTransaction("AmtDtls", "TxAmt", "Amt"):
		if tx.hasAmount {
			return nil
		}
		a, err := amount(text)
		if err != nil {
			return refuse("entry %d: a transaction's amount %q is not a positive amount", n, clip(text))
		}
		tx.amount, tx.hasAmount = a, true
	case p.inTransaction("Refs", "EndToEndId"):
		tx.endToEndID = text
	case p.inTransaction("RtrInf", "Rsn", "Cd"), p.inTransaction("RtrInf", "Rsn", "Prtry"):
		tx.returnReason = text
	}
	return nil
}

func amount(text string) (decimal.Decimal, error) {
	a, err := decimal.NewFromString(text)
	if err != nil || len(text) > 19 || !a.IsPositive() || a.Exponent() < -5 || strings.ContainsAny(text, "eE+-") {
		return decimal.Decimal{}, errors.New("not a positive amount")
	}
	return a, nil
}

// addEntry checks a whole entry and adds its lines: the entry itself with
// its one transaction's references, or one line for each of its several
// transactions when their amounts, in the entry's currency, add up to the
// entry's.
func (p *parser) addEntry(e Entry) error {
	if err := check(e, len(p.st.Entries)); err != nil {
		return err
	}
	lines := []Entry{e}
	switch {
	case len(p.txs) == 1:
		lines[0] = withTransaction(e, p.txs[0])
	case len(p.txs) > 1:
		lines = lines[:0]
		sum := decimal.Zero
		for _, tx := range p.txs {
			if !tx.hasAmount || tx.currency != e.Currency {
				lines = nil
				break
			}
			sum = sum.Add(tx.amount)
			line := withTransaction(e, tx)
			line.Amount = tx.amount
			lines = append(lines, line)
		}
		if lines == nil || !sum.Equal(e.Amount) {
			e.Unsplit = true
			lines = []Entry{e}
		}
	}
	for _, l := range lines {
		if len(p.st.Entries) >= MaxEntries {
			return refuse("more than %d entries", MaxEntries)
		}
		if err := checkReferences(l, len(p.st.Entries)); err != nil {
			return err
		}
		p.st.Entries = append(p.st.Entries, l)
	}
	return nil
}

// withTransaction is entry e with the references of its transaction tx.
func withTransaction(e Entry, tx transaction) Entry {
	e.EndToEndID = tx.endToEndID
	e.ReturnReason = tx.returnReason
	return e
}

// check refuses an entry reconciliation could not read.
func check(e Entry, i int) error {
	n := i + 1
	switch {
	case e.Amount.IsZero():
		return refuse("entry %d has no amount", n)
	case len(e.Currency) != 3 || strings.ToUpper(e.Currency) != e.Currency || strings.ContainsFunc(e.Currency, notLetter):
		return refuse("entry %d: currency %q is not an ISO 4217 code", n, clip(e.Currency))
	case e.Direction == "":
		return refuse("entry %d has no CdtDbtInd", n)
	case e.Status == "":
		return refuse("entry %d has no status", n)
	case len(e.Status) > 35:
		return refuse("entry %d: a status longer than 35 characters", n)
	case e.BookingDate != "" && !isDate(e.BookingDate):
		return refuse("entry %d: booking date %q is not a date (YYYY-MM-DD)", n, clip(e.BookingDate))
	case e.Booked() && e.BookingDate == "":
		return refuse("entry %d is booked without a booking date", n)
	case len(e.AcctSvcrRef) > 35:
		return refuse("entry %d: a reference longer than 35 characters", n)
	}
	return nil
}

// checkReferences refuses a line whose references are longer than the
// schema allows (Max35Text).
func checkReferences(e Entry, i int) error {
	if len(e.EndToEndID) > 35 || len(e.ReturnReason) > 35 {
		return refuse("entry %d: a reference longer than 35 characters", i+1)
	}
	return nil
}

func notLetter(r rune) bool { return r < 'A' || r > 'Z' }

// isDate reports whether s is a calendar date written YYYY-MM-DD.
func isDate(s string) bool {
	if len(s) != 10 {
		return false
	}
	t, err := time.Parse(time.DateOnly, s)
	return err == nil && t.Year() >= 1900 && t.Year() <= 9999
}

func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

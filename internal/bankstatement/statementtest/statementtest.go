// Package statementtest writes camt.053.001.08 statements for tests, valid
// against the ISO 20022 schema: the entries a bank books for the payments
// of a pay run, their returns, and whatever else a statement holds.
package statementtest

import (
	"bytes"
	"encoding/xml"
	"fmt"
)

// Entry is one entry of a statement.
type Entry struct {
	Amount    string // "336.90"
	Currency  string // EUR when empty
	Credit    bool   // a credit; a debit otherwise
	Status    string // BOOK when empty
	Date      string // the booking date; 2026-12-11 when empty
	Reference string // AcctSvcrRef
	// EndToEndID is the single transaction's EndToEndId ("" for none).
	EndToEndID string
	// ReturnReason makes the entry a return (RtrInf/Rsn/Cd).
	ReturnReason string
	// Batch books several transactions in the entry, each with its
	// EndToEndId and amount (EndToEndID is then ignored).
	Batch []Transaction
}

// Transaction is one transaction of a batch entry.
type Transaction struct {
	EndToEndID string
	Amount     string
}

// Tx is a transaction of a batch entry.
func Tx(endToEndID, amount string) Transaction {
	return Transaction{EndToEndID: endToEndID, Amount: amount}
}

// Paid is the booked debit of a payment.
func Paid(endToEndID, amount string) Entry {
	return Entry{Amount: amount, EndToEndID: endToEndID, Reference: "REF-" + endToEndID}
}

// Returned is the booked credit that gives a payment back.
func Returned(endToEndID, amount, reason string) Entry {
	return Entry{Amount: amount, Credit: true, EndToEndID: endToEndID, ReturnReason: reason, Reference: "RTR-" + endToEndID}
}

func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// Camt053 is a statement with id and entries of the account iban.
func Camt053(id, iban string, entries ...Entry) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
<BkToCstmrStmt>
<GrpHdr><MsgId>MSG-` + esc(id) + `</MsgId><CreDtTm>2026-12-12T06:00:00</CreDtTm></GrpHdr>
<Stmt>
<Id>` + esc(id) + `</Id>
<CreDtTm>2026-12-12T06:00:00</CreDtTm>
<Acct><Id><IBAN>` + esc(iban) + `</IBAN></Id></Acct>
<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">10000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-12-11</Dt></Dt></Bal>
`)
	for _, e := range entries {
		currency, status, date, side := e.Currency, e.Status, e.Date, "DBIT"
		if currency == "" {
			currency = "EUR"
		}
		if status == "" {
			status = "BOOK"
		}
		if date == "" {
			date = "2026-12-11"
		}
		family := "ICDT"
		sub := "ESCT"
		if e.Credit {
			side = "CRDT"
		}
		if e.ReturnReason != "" {
			sub = "RRTN"
		}
		fmt.Fprintf(&b, `<Ntry>
<Amt Ccy="%s">%s</Amt>
<CdtDbtInd>%s</CdtDbtInd>
<Sts><Cd>%s</Cd></Sts>
<BookgDt><Dt>%s</Dt></BookgDt>
`, esc(currency), esc(e.Amount), side, esc(status), esc(date))
		if e.Reference != "" {
			fmt.Fprintf(&b, "<AcctSvcrRef>%s</AcctSvcrRef>\n", esc(e.Reference))
		}
		fmt.Fprintf(&b, "<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>%s</Cd><SubFmlyCd>%s</SubFmlyCd></Fmly></Domn></BkTxCd>\n", family, sub)
		txs := e.Batch
		if txs == nil && (e.EndToEndID != "" || e.ReturnReason != "") {
			txs = []Transaction{{EndToEndID: e.EndToEndID}}
		}
		if len(txs) > 0 {
			b.WriteString("<NtryDtls>\n")
			if len(txs) > 1 {
				fmt.Fprintf(&b, "<Btch><NbOfTxs>%d</NbOfTxs></Btch>\n", len(txs))
			}
			for _, tx := range txs {
				b.WriteString("<TxDtls>")
				if tx.EndToEndID != "" {
					fmt.Fprintf(&b, "<Refs><EndToEndId>%s</EndToEndId></Refs>", esc(tx.EndToEndID))
				}
				if tx.Amount != "" {
					fmt.Fprintf(&b, `<Amt Ccy="%s">%s</Amt><CdtDbtInd>%s</CdtDbtInd>`, esc(currency), esc(tx.Amount), side)
				}
				if e.ReturnReason != "" {
					fmt.Fprintf(&b, "<RtrInf><Rsn><Cd>%s</Cd></Rsn></RtrInf>", esc(e.ReturnReason))
				}
				b.WriteString("</TxDtls>\n")
			}
			b.WriteString("</NtryDtls>\n")
		}
		b.WriteString("</Ntry>\n")
	}
	b.WriteString("</Stmt>\n</BkToCstmrStmt>\n</Document>\n")
	return b.Bytes()
}

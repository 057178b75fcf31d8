package payments

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"

	"github.com/shopspring/decimal"
)

// Namespace is the XML namespace of a pain.001.001.09 message.
const Namespace = "urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"

type painDocument struct {
	XMLName xml.Name `xml:"Document"`
	Xmlns   string   `xml:"xmlns,attr"`
	Init    struct {
		GrpHdr struct {
			MsgID    string `xml:"MsgId"`
			CreDtTm  string `xml:"CreDtTm"`
			NbOfTxs  int    `xml:"NbOfTxs"`
			CtrlSum  string `xml:"CtrlSum"`
			InitgPty struct {
				Nm string `xml:"Nm"`
			} `xml:"InitgPty"`
		} `xml:"GrpHdr"`
		PmtInf []paymentInformation `xml:"PmtInf"`
	} `xml:"CstmrCdtTrfInitn"`
}

type paymentInformation struct {
	PmtInfID string `xml:"PmtInfId"`
	PmtMtd   string `xml:"PmtMtd"`
	// BtchBookg false asks the bank to book each transfer on its own, so
	// that a statement names each item by its EndToEndId.
	BtchBookg bool   `xml:"BtchBookg"`
	NbOfTxs   int    `xml:"NbOfTxs"`
	CtrlSum   string `xml:"CtrlSum"`
	PmtTpInf  struct {
		SvcLvl struct {
			Cd string `xml:"Cd"`
		} `xml:"SvcLvl"`
	} `xml:"PmtTpInf"`
	ReqdExctnDt struct {
		Dt string `xml:"Dt"`
	} `xml:"ReqdExctnDt"`
	Dbtr struct {
		Nm string `xml:"Nm"`
	} `xml:"Dbtr"`
	DbtrAcct    account      `xml:"DbtrAcct"`
	DbtrAgt     agent        `xml:"DbtrAgt"`
	ChrgBr      string       `xml:"ChrgBr"`
	CdtTrfTxInf []creditTran `xml:"CdtTrfTxInf"`
}

type account struct {
	IBAN string `xml:"Id>IBAN"`
}

type agent struct {
	BICFI string `xml:"FinInstnId>BICFI,omitempty"`
	Other *other `xml:"FinInstnId>Othr,omitempty"`
}

type other struct {
	ID string `xml:"Id"`
}

type creditTran struct {
	EndToEndID string `xml:"PmtId>EndToEndId"`
	Amt        struct {
		InstdAmt struct {
			Ccy   string `xml:"Ccy,attr"`
			Value string `xml:",chardata"`
		} `xml:"InstdAmt"`
	} `xml:"Amt"`
	CdtrAgt *agent `xml:"CdtrAgt,omitempty"`
	Cdtr    struct {
		Nm string `xml:"Nm"`
	} `xml:"Cdtr"`
	CdtrAcct account `xml:"CdtrAcct"`
	Ustrd    string  `xml:"RmtInf>Ustrd,omitempty"`
}

// MessageID is the message id of a run's file: the run's own, so that
// every download of it is the same message.
func MessageID(orgID, runID int64) string { return fmt.Sprintf("GB-RUN-%d-%d", orgID, runID) }

// pain001 renders an approved or sent run as a SEPA credit transfer
// initiation. Everything in it is read from the stored run (its creation
// time is the run's approval), nothing from the clock.
func pain001(r Run) ([]byte, error) {
	if r.ApprovedAt == nil {
		return nil, fmt.Errorf("payments: run %d was never approved", r.ID)
	}
	var doc painDocument
	doc.Xmlns = Namespace
	h := &doc.Init.GrpHdr
	h.MsgID = MessageID(r.orgID, r.ID)
	h.CreDtTm = r.ApprovedAt.UTC().Format("2006-01-02T15:04:05")
	h.InitgPty.Nm = text(r.Debtor.Name, 70)

	// One PmtInf per execution date: a run has one.
	p := paymentInformation{PmtInfID: h.MsgID + "-" + r.ExecutionDate, PmtMtd: "TRF", ChrgBr: "SLEV"}
	p.PmtTpInf.SvcLvl.Cd = "SEPA"
	p.ReqdExctnDt.Dt = r.ExecutionDate
	p.Dbtr.Nm = text(r.Debtor.Name, 70)
	p.DbtrAcct.IBAN = r.Debtor.IBAN
	p.DbtrAgt = agentOf(r.Debtor.BIC)
	sum := decimal.Zero
	for _, it := range r.Items {
		amount, err := decimal.NewFromString(it.Amount)
		if err != nil {
			return nil, fmt.Errorf("payments: item %d: amount %q: %w", it.ID, it.Amount, err)
		}
		sum = sum.Add(amount)
		var t creditTran
		t.EndToEndID = it.EndToEndID
		t.Amt.InstdAmt.Ccy = it.Currency
		t.Amt.InstdAmt.Value = amount.StringFixed(2)
		if it.Creditor.BIC != "" {
			a := agentOf(it.Creditor.BIC)
			t.CdtrAgt = &a
		}
		t.Cdtr.Nm = text(it.Creditor.Name, 70)
		t.CdtrAcct.IBAN = it.Creditor.IBAN
		t.Ustrd = text(remittance(it), 140)
		p.CdtTrfTxInf = append(p.CdtTrfTxInf, t)
	}
	p.NbOfTxs, p.CtrlSum = len(r.Items), sum.StringFixed(2)
	h.NbOfTxs, h.CtrlSum = p.NbOfTxs, p.CtrlSum
	doc.Init.PmtInf = []paymentInformation{p}

	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("payments: encode run %d: %w", r.ID, err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

func agentOf(bic string) agent {
	if bic == "" {
		return agent{Other: &other{ID: "NOTPROVIDED"}}
	}
	return agent{BICFI: bic}
}

// text cuts s to at most n characters.
func text(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// FileName is the name a run's file is downloaded under.
func FileName(runID int64) string {
	return "payment-run-" + strconv.FormatInt(runID, 10) + ".pain.001.xml"
}

// remittance is what the creditor reads of an item: the invoice's number,
// and the credit note netted against it.
func remittance(it Item) string {
	if it.CreditNoteNumber == "" {
		return it.InvoiceNumber
	}
	return it.InvoiceNumber + " less credit note " + it.CreditNoteNumber + " (" + it.Credited + ")"
}

package einvoice

import "encoding/json"

// Payment is the creditor's account a document asks to be paid to, as JSON shows it: "payment":
// {"iban": ..., "bic": ...}. It is not a second copy of the account: IBAN is the document's
// PayeeIBAN (BT-84, which JSON also shows as payee_iban for the clients and checks that read it) and
// BIC its PayeeBIC (BT-86).
type Payment struct {
	IBAN string `json:"iban"`
	BIC  string `json:"bic,omitempty"`
}

// Payment is d's creditor account, or nil when d states none.
func (d Document) Payment() *Payment {
	if d.PayeeIBAN == "" && d.PayeeBIC == "" {
		return nil
	}
	return &Payment{IBAN: d.PayeeIBAN, BIC: d.PayeeBIC}
}

// documentFields is Document without its methods, so that MarshalJSON and UnmarshalJSON can use the
// default encoding for every other field.
type documentFields Document

type documentJSON struct {
	documentFields
	Payment *Payment `json:"payment,omitempty"`
}

// MarshalJSON writes d with its payment object beside payee_iban.
func (d Document) MarshalJSON() ([]byte, error) {
	return json.Marshal(documentJSON{documentFields: documentFields(d), Payment: d.Payment()})
}

// UnmarshalJSON reads what MarshalJSON writes. payee_iban, where present, is the IBAN (it is what
// fields stored before payment existed hold); payment.iban stands in where it is absent.
func (d *Document) UnmarshalJSON(b []byte) error {
	var in documentJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*d = Document(in.documentFields)
	if in.Payment != nil {
		if d.PayeeIBAN == "" {
			d.PayeeIBAN = in.Payment.IBAN
		}
		d.PayeeBIC = in.Payment.BIC
	}
	return nil
}

// Package en16931 holds the semantic model of the European e-invoicing standard EN 16931 and its business
// rules, so that a UBL and a CII invoice are judged by one rule set, each rule with its official id, flag and text.
package en16931

import (
	"strings"

	"github.com/shopspring/decimal"
)

// Text is a business term's value with its presence: an absent term is not the same as an empty one.
type Text struct {
	Value   string
	Present bool
}

// Norm is the value with surrounding and repeated white space collapsed, as XPath's normalize-space.
func (t Text) Norm() string { return strings.Join(strings.Fields(t.Value), " ") }

// Filled reports whether the term is present and not blank.
func (t Text) Filled() bool { return t.Norm() != "" }

// Amount is a numeric business term as written in the document: presence, the raw text (for the decimals
// rules) and the currency attribute where the syntax has one.
type Amount struct {
	Text
	Currency Text
}

// Dec is the amount's value, and whether it parses as a decimal number.
func (a Amount) Dec() (decimal.Decimal, bool) {
	if !a.Present {
		return decimal.Zero, false
	}
	s := strings.TrimSpace(a.Value)
	if s == "" || strings.ContainsAny(s, "eE") {
		return decimal.Zero, false
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Zero, false
	}
	return d, true
}

// Identifier is an identifier business term with its scheme (BT-29 with BT-29-1 and the like).
type Identifier struct {
	Text
	Scheme Text
}

// TaxCategory is a VAT category with its rate and exemption reason (BT-95/96, BT-102/103, BT-118/119/120/121,
// BT-151/152). IsVAT is false when the tax scheme names another tax than VAT.
type TaxCategory struct {
	Present             bool
	IsVAT               bool
	Code                Text
	Rate                Amount
	ExemptionReason     Text
	ExemptionReasonCode Text
}

// Address is a postal address (BG-5, BG-8, BG-12, BG-15).
type Address struct {
	Present  bool
	Country  Text
	City     Text // BT-37, BT-52, BT-77
	PostCode Text // BT-38, BT-53, BT-78
}

// Contact is a seller contact (BG-6) as XRechnung requires it.
type Contact struct {
	Present   bool
	Name      Text // BT-41
	Telephone Text // BT-42
	Email     Text // BT-43
}

// Party is a seller, buyer, payee or tax representative (BG-4, BG-7, BG-10, BG-11).
type Party struct {
	Present           bool
	Name              Text // trading name or, for payee/tax representative, the name (BT-28, BT-45, BT-59, BT-62)
	LegalName         Text // BT-27, BT-44
	LegalID           Identifier
	IDs               []Identifier // BT-29, BT-46, BT-60
	VATID             Text         // BT-31, BT-48, BT-63
	TaxRegistrationID Text         // BT-32
	ElectronicAddress Identifier   // BT-34, BT-49
	Address           Address
	Contact           Contact // BG-6 (seller)
}

// Period is an invoicing period (BG-14, BG-26).
type Period struct {
	Present         bool
	Start           Text
	End             Text
	DescriptionCode Text // BT-8
}

// AllowanceCharge is a document level (BG-20, BG-21) or line level (BG-27, BG-28) allowance or charge.
type AllowanceCharge struct {
	Indicator   Text // "true" for a charge, "false" for an allowance
	Amount      Amount
	BaseAmount  Amount
	Reason      Text
	ReasonCode  Text
	TaxCategory TaxCategory // document level only
}

// VATBreakdown is one VAT breakdown (BG-23).
type VATBreakdown struct {
	TaxableAmount Amount // BT-116
	TaxAmount     Amount // BT-117
	Category      TaxCategory
}

// TaxTotal is a total VAT amount (BT-110 or BT-111) with its breakdowns.
type TaxTotal struct {
	Amount     Amount
	Breakdowns []VATBreakdown
}

// Totals is the document totals group (BG-22).
type Totals struct {
	Present        bool
	LineNet        Amount // BT-106
	AllowanceTotal Amount // BT-107
	ChargeTotal    Amount // BT-108
	TaxExclusive   Amount // BT-109
	TaxInclusive   Amount // BT-112
	Prepaid        Amount // BT-113
	Rounding       Amount // BT-114
	Payable        Amount // BT-115
}

// PaymentMeans is one payment instruction (BG-16).
type PaymentMeans struct {
	Code          Text // BT-81
	PayeeAccounts []Text
	CardNumber    Text // BT-87
	// The payment groups stated in this payment means, for XRechnung's BR-DE-23…25: credit transfer (BG-17),
	// payment card (BG-18), direct debit (BG-19).
	CreditTransfer bool
	Card           bool
	DirectDebit    bool
}

// ItemAttribute is one item attribute (BG-32).
type ItemAttribute struct {
	Name  Text
	Value Text
}

// Line is an invoice line (BG-25).
type Line struct {
	ID               Text   // BT-126
	Quantity         Amount // BT-129
	UnitCode         Text   // BT-130
	NetAmount        Amount // BT-131
	Period           Period
	AllowanceCharges []AllowanceCharge
	PricePresent     bool
	Price            Amount // BT-146
	PriceDiscount    Amount // BT-147
	GrossPrice       Amount // BT-148
	ItemName         Text   // BT-153
	StandardID       Identifier
	Classifications  []Identifier
	Category         TaxCategory // BG-30
	Attributes       []ItemAttribute
}

// Delivery is the delivery information (BG-13).
type Delivery struct {
	Present    bool
	ActualDate Text // BT-72
	Address    Address
	LocationID Identifier
}

// Invoice is the EN 16931 semantic model of one invoice or credit note as the business rules read it.
type Invoice struct {
	Syntax          string // "ubl" or "cii"
	CreditNote      bool   // UBL CreditNote root
	CustomizationID Text   // BT-24
	ID              Text   // BT-1
	IssueDate       Text   // BT-2
	TypeCode        Text   // BT-3
	Currency        Text   // BT-5
	TaxCurrency     Text   // BT-6
	TaxPointDate    Text   // BT-7
	Period          Period // BG-14

	Seller         Party
	Buyer          Party
	Payee          Party
	TaxRep         Party
	Delivery       Delivery
	PaymentMeans   []PaymentMeans
	Allowances     []AllowanceCharge // document level, allowances and charges in document order
	TaxTotals      []TaxTotal
	Totals         Totals
	Lines          []Line
	SupportingDocs []Text // BT-122 of each BG-24
	PrecedingIDs   []Text // BT-25 of each BG-3
	BuyerReference Text   // BT-10
	PaymentTerms   []Text // BT-20, each as written
	// AttachmentNames is the filename of each attached document (BT-125), for XRechnung's BR-DE-22.
	AttachmentNames []Text

	// VATIdentifiers lists every VAT identifier of any party (BT-31, BT-48, BT-63) for BR-CO-09.
	VATIdentifiers []Text
}

// IsCharge reports whether the indicator says charge (true or 1).
func (a AllowanceCharge) IsCharge() bool { v := a.Indicator.Norm(); return v == "true" || v == "1" }

// IsAllowance reports whether the indicator says allowance (false or 0).
func (a AllowanceCharge) IsAllowance() bool { v := a.Indicator.Norm(); return v == "false" || v == "0" }

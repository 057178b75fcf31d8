package einvoicetest

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"

	"greatbook/internal/einvoice"
	"greatbook/internal/money"
)

var sortedCurrencies = func() []string {
	codes := money.Codes()
	slices.Sort(codes)
	return codes
}()

func textGen(pattern string) *rapid.Generator[string] {
	return rapid.Map(rapid.StringMatching(pattern), strings.TrimSpace)
}

func amountGen(maxScale int32) *rapid.Generator[decimal.Decimal] {
	return rapid.Custom(func(t *rapid.T) decimal.Decimal {
		value, _ := new(big.Int).SetString(rapid.StringMatching(`[0-9]{1,12}`).Draw(t, "digits"), 10)
		if rapid.IntRange(0, 4).Draw(t, "sign") == 0 {
			value.Neg(value)
		}
		return decimal.NewFromBigInt(value, -rapid.Int32Range(0, maxScale).Draw(t, "scale"))
	})
}

var dateGen = rapid.Custom(func(t *rapid.T) string {
	return fmt.Sprintf("%04d-%02d-%02d", rapid.IntRange(2000, 2030).Draw(t, "year"),
		rapid.IntRange(1, 12).Draw(t, "month"), rapid.IntRange(1, 28).Draw(t, "day"))
})

// partyGen generates parties with every identifier, an address aside.
var partyGen = rapid.Custom(func(t *rapid.T) einvoice.Party {
	p := einvoice.Party{
		Name:    textGen(`[\p{L}\p{N}&<>"'./ -]{0,24}`).Draw(t, "name"),
		VATID:   textGen(`([A-Z]{2}[0-9A-Z .-]{2,14})?`).Draw(t, "vat"),
		LegalID: textGen(`[0-9A-Z /-]{0,12}`).Draw(t, "legal"),
	}
	if id := textGen(`[0-9a-z@.&]{0,20}`).Draw(t, "endpoint"); id != "" {
		p.EndpointID, p.EndpointScheme = id, textGen(`[0-9A-Z]{0,4}`).Draw(t, "scheme")
	}
	return p
})

// DocumentGen generates arbitrary, well-formed documents: every field the own JSON carries.
var DocumentGen = rapid.Custom(func(t *rapid.T) einvoice.Document {
	code := rapid.SampledFrom([]string{"380", "381", "384", "389", "396", "261", "751"}).Draw(t, "type code")
	d := einvoice.Document{
		Format: einvoice.FormatJSON, Type: einvoice.DocTypeFor(code), TypeCode: code,
		Number:       textGen(`[\p{L}\p{N}/ -]{0,16}`).Draw(t, "number"),
		IssueDate:    dateGen.Draw(t, "issue date"),
		Currency:     rapid.SampledFrom(sortedCurrencies).Draw(t, "currency"),
		Seller:       partyGen.Draw(t, "seller"),
		Buyer:        partyGen.Draw(t, "buyer"),
		Lines:        []einvoice.Line{},
		TaxSubtotals: []einvoice.TaxSubtotal{},
	}
	if rapid.Bool().Draw(t, "has due date") {
		d.DueDate = dateGen.Draw(t, "due date")
	}
	if rapid.Bool().Draw(t, "has billing reference") {
		d.BillingReference = textGen(`[A-Z0-9-]{1,12}`).Draw(t, "billing reference")
	}
	categories := rapid.SampledFrom([]string{"S", "Z", "E", "AE", "K", "G", "O", "L", "M"})
	for i := range rapid.IntRange(0, 4).Draw(t, "lines") {
		l := einvoice.Line{
			Description: textGen(`[\p{L}\p{N}&<>"'., -]{0,30}`).Draw(t, fmt.Sprint("description ", i)),
			Quantity:    amountGen(4).Draw(t, "quantity"),
			UnitPrice:   amountGen(4).Draw(t, "unit price"),
			Net:         amountGen(3).Draw(t, "net"),
			TaxRate:     amountGen(2).Draw(t, "rate").Abs(),
			TaxCategory: categories.Draw(t, "category"),
		}
		if rapid.IntRange(0, 3).Draw(t, "has base") == 0 {
			l.PriceBaseQuantity = amountGen(2).Draw(t, "base").Abs()
		}
		if rapid.IntRange(0, 3).Draw(t, "has allowance") == 0 {
			l.Allowances = amountGen(2).Draw(t, "allowances")
		}
		if rapid.IntRange(0, 3).Draw(t, "has charge") == 0 {
			l.Charges = amountGen(2).Draw(t, "charges")
		}
		d.Lines = append(d.Lines, l)
	}
	for range rapid.IntRange(0, 3).Draw(t, "subtotals") {
		d.TaxSubtotals = append(d.TaxSubtotals, einvoice.TaxSubtotal{
			Category: rapid.SampledFrom([]string{"", "S", "E", "Z"}).Draw(t, "subtotal category"),
			Rate:     amountGen(2).Draw(t, "subtotal rate").Abs(),
			Taxable:  amountGen(3).Draw(t, "taxable"),
			Tax:      amountGen(3).Draw(t, "tax"),
		})
	}
	a := amountGen(3)
	d.Totals = einvoice.Totals{
		LineTotal: a.Draw(t, "line total"), AllowanceTotal: a.Draw(t, "allowance total"), ChargeTotal: a.Draw(t, "charge total"),
		Net: a.Draw(t, "net total"), Tax: a.Draw(t, "tax total"), Gross: a.Draw(t, "gross"),
		Prepaid: a.Draw(t, "prepaid"), Rounding: a.Draw(t, "rounding"), Payable: a.Draw(t, "payable"),
	}
	return d
})

// BuilderDocumentGen is DocumentGen with what the own JSON does not carry but the builders write:
// postal addresses, in the shape a parser gives them, and the payee's account.
var BuilderDocumentGen = rapid.Custom(func(t *rapid.T) einvoice.Document {
	d := DocumentGen.Draw(t, "document")
	d.Seller.Address = addressGen.Draw(t, "seller address")
	d.Buyer.Address = addressGen.Draw(t, "buyer address")
	account := PayeeAccountGen.Draw(t, "payee account")
	d.PayeeIBAN, d.PayeeBIC = account.IBAN, account.BIC
	return d
})

// PayeeAccountGen draws the payee's account as the builders write it: none, or an IBAN-like account
// (BT-84) with or without its bank (BT-86). A bank without an account is not drawn: UBL nests the bank
// in the account, and both builders write it only with one.
var PayeeAccountGen = rapid.Custom(func(t *rapid.T) einvoice.Payment {
	iban := textGen(`([A-Z]{2}[0-9]{2}[0-9A-Z ]{4,20})?`).Draw(t, "iban")
	if iban == "" {
		return einvoice.Payment{}
	}
	return einvoice.Payment{IBAN: iban, BIC: textGen(`([A-Z0-9]{8}([A-Z0-9]{3})?)?`).Draw(t, "bic")}
})

var addressGen = rapid.Custom(func(t *rapid.T) einvoice.Address {
	lines := rapid.SliceOfN(textGen(`[\p{L}\p{N}&<>'., -]{0,20}`), 0, 4).Draw(t, "lines")
	return einvoice.PostalAddress(lines, textGen(`[\p{L} -]{0,12}`).Draw(t, "city"),
		textGen(`[0-9A-Z -]{0,8}`).Draw(t, "postcode"), textGen(`([A-Z]{2})?`).Draw(t, "country"))
})

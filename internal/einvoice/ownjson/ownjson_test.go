package ownjson_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/einvoice/read"
)

func TestComputedJSONSubtotals(t *testing.T) {
	t.Parallel()
	d, err := read.Parse(einvoicetest.ReadTestdata(t, "json-invoice-without-totals.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []einvoice.TaxSubtotal{
		{Category: "S", Rate: einvoicetest.Dec("25"), Taxable: einvoicetest.Dec("155.97"), Tax: einvoicetest.Dec("38.99")},
		{Category: "S", Rate: einvoicetest.Dec("12"), Taxable: einvoicetest.Dec("50.00"), Tax: einvoicetest.Dec("6.00")},
		{Category: "S", Rate: einvoicetest.Dec("6"), Taxable: einvoicetest.Dec("50.00"), Tax: einvoicetest.Dec("3.00")},
		{Category: "Z", Rate: einvoicetest.Dec("0"), Taxable: einvoicetest.Dec("45.00"), Tax: einvoicetest.Dec("0")},
	}
	if got, w := comparableSubtotals(d.TaxSubtotals), comparableSubtotals(want); got != w {
		t.Errorf("subtotals\n got %s\nwant %s", got, w)
	}
	// 1.5 × 33.33 = 49.995 rounds half up to 50.00; 1200 labels at 8.00 per 100 are 96.00.
	for i, net := range []string{"59.97", "50.00", "50.00", "45.00", "96.00"} {
		if !d.Lines[i].Net.Equal(einvoicetest.Dec(net)) {
			t.Errorf("lines[%d].net = %s, want %s", i, d.Lines[i].Net, net)
		}
	}
}

func comparableSubtotals(s []einvoice.TaxSubtotal) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestDeepJSONIsRefusedNamingTheCap(t *testing.T) {
	for _, levels := range []int{65, 100_000} {
		data := []byte(`{"type":"invoice","seller":{"name":` + strings.Repeat("[", levels) + strings.Repeat("]", levels) + `}}`)
		_, err := ownjson.Parse(data)
		var pe *einvoice.ParseError
		if !errors.As(err, &pe) || pe.Code != einvoice.CodeInputCap || pe.Field != "json_depth" {
			t.Fatalf("%d levels: %v, want an input_cap error naming json_depth", levels, err)
		}
	}
}

func TestJSONWithTooManyValuesIsRefused(t *testing.T) {
	data := []byte(`{"type":"invoice","lines":[` + strings.Repeat(`{},`, 1_000_000) + `{}]}`)
	var pe *einvoice.ParseError
	if _, err := ownjson.Parse(data); !errors.As(err, &pe) || pe.Code != einvoice.CodeInputCap || pe.Field != "json_values" {
		t.Fatalf("Parse: %v, want an input_cap error naming json_values", err)
	}
}

// encoding/json keeps the last of two equal keys, so {"number":"A","number":"B"} read as B while any
// other reader may see A. The project's own format refuses it, naming the repeated field.
func TestJSONDuplicateKeysAreRefused(t *testing.T) {
	base := string(einvoicetest.ReadTestdata(t, "json-invoice-without-totals.json"))
	for _, tc := range []struct{ name, data, field string }{
		{"top level", strings.Replace(base, `"type"`, `"number": "X-1", "type"`, 1), "number"},
		{"nested", strings.Replace(base, `"seller": {`, `"seller": {"name": "Shadow GmbH", `, 1), "seller.name"},
		{"in a line", strings.Replace(base, `"quantity"`, `"unit_price": "0.01", "quantity"`, 1), "lines[0].unit_price"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.data, tc.field[strings.LastIndex(tc.field, ".")+1:]) || tc.data == base {
				t.Fatal("the fixture did not change")
			}
			_, err := ownjson.Parse([]byte(tc.data))
			var pe *einvoice.ParseError
			if !errors.As(err, &pe) || pe.Field != tc.field || !strings.Contains(pe.Reason, "duplicate key") {
				t.Fatalf("Parse: %v, want a duplicate key at %s", err, tc.field)
			}
		})
	}
	if _, err := ownjson.Parse([]byte(base)); err != nil {
		t.Fatalf("the fixture itself: %v", err)
	}
	// The same key in two objects is no duplicate.
	if err := ownjson.CheckJSON(nil, []byte(`{"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}]}`)); err != nil {
		t.Fatalf("keys in sibling objects: %v", err)
	}
}

func TestJSONMustBeUTF8(t *testing.T) {
	t.Parallel()
	_, err := ownjson.Parse([]byte("{\"type\":\"invoice\",\"number\":\"INV-\xff\xfe\"}"))
	if err == nil || !strings.Contains(err.Error(), "not valid UTF-8 (byte 32)") {
		t.Fatalf("invalid UTF-8 JSON: %v", err)
	}
}

package einvoice_test

import (
	"os"
	"strings"
	"testing"

	"greatbook/internal/einvoice"
)

func TestPrettyKeepsPrefixesAndText(t *testing.T) {
	raw, _ := os.ReadFile("testdata/samples/peppol-bis3-base-example.xml")
	s := einvoice.Pretty(raw)
	if !strings.Contains(s, "\n  <cbc:CustomizationID>") || !strings.Contains(s, "<cbc:ID>Snippet1</cbc:ID>") {
		t.Fatalf("pretty XML:\n%s", s[:min(len(s), 600)])
	}
	if einvoice.Pretty([]byte(`{"a":1,"b":[2]}`)) != "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}" {
		t.Fatalf("pretty JSON: %q", einvoice.Pretty([]byte(`{"a":1,"b":[2]}`)))
	}
}

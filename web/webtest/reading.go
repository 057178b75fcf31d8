package webtest

import (
	"testing"

	"greatbook/internal/textfields/specimen"
)

// PlainInvoice is specimen.Plain, failing t on an error.
func PlainInvoice(t *testing.T, rows [][2]string) []byte {
	t.Helper()
	b, err := specimen.Plain(rows)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// GermanInvoice is specimen.PlainGerman, failing t on an error.
func GermanInvoice(t *testing.T, numberLabel, number, date, net, tax, total string) []byte {
	t.Helper()
	b, err := specimen.PlainGerman(numberLabel, number, date, net, tax, total)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FiledPDF uploads a PDF through the API and waits for the clerk to file
// it with status.
func FiledPDF(t *testing.T, c *APIClient, content []byte, status string) int64 {
	t.Helper()
	code, body := c.Do("POST", "/api/v1/documents", "application/pdf", content)
	if code != 202 {
		t.Fatalf("upload: %d %v", code, body)
	}
	id := body["intake_id"].(float64)
	c.WaitStatus(id, status)
	return int64(id)
}

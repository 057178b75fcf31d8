package views

import (
	"encoding/json"
	"fmt"
	"strings"

	"greatbook/internal/intake"
)

// DuplicateRejectReason is the reason the one-click "reject as duplicate"
// gives: what the document duplicates and why it was flagged, in words a
// supplier or an auditor reads without the page.
func DuplicateRejectReason(d intake.Document) string {
	var f struct {
		Number string `json:"number"`
		Seller struct {
			Name string `json:"name"`
		} `json:"seller"`
	}
	_ = json.Unmarshal(d.Fields, &f)
	why := reasonLabels[d.DuplicateReason]
	switch d.DuplicateReason {
	case intake.SameReference:
		ref := strings.TrimSpace(strings.TrimSpace(f.Seller.Name) + " " + strings.TrimSpace(f.Number))
		if ref != "" {
			why = "same supplier reference: " + ref
		} else {
			why = "same supplier reference"
		}
	case intake.SameContent:
		why = "same supplier, date, currency and total"
	}
	if why == "" {
		why = "flagged as a duplicate"
	}
	return fmt.Sprintf("Duplicate of #%d (%s).", d.DuplicateOf, why)
}

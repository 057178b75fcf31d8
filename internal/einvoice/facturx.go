package einvoice

// ParseFacturX extracts the CII invoice a Factur-X or ZUGFeRD 2 PDF carries as an embedded file. The first
// embedded file whose XML root is a CII CrossIndustryInvoice is used, whatever its name. A PDF without one
// gives ErrNoStructuredData (the pipeline then asks a person), unless carving stopped at a cap before
// finding one, which gives a *ParseError with Code CodeInputCap; an embedded CII that cannot be read gives
// a *ParseError for FormatFacturX.
func ParseFacturX(data []byte) (Document, error) {
	return parseFacturX(nil, data)
}

func parseFacturX(dl *deadline, data []byte) (Document, error) {
	xmlData, capErr := carveCII(dl, data)
	if capErr != nil {
		return Document{}, capErr
	}
	if xmlData == nil {
		return Document{}, ErrNoStructuredData
	}
	return parseCII(dl, FormatFacturX, xmlData)
}

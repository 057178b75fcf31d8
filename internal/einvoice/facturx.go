package einvoice

// ParseFacturX extracts the CII invoice a Factur-X or ZUGFeRD 2 PDF carries as an embedded file. The first
// embedded file whose XML root is a CII CrossIndustryInvoice is used, whatever its name. A PDF without one
// gives ErrNoStructuredData (the pipeline then asks a person); an embedded CII that cannot be read gives a
// *ParseError for FormatFacturX.
func ParseFacturX(data []byte) (Document, error) {
	xmlData, ok := findEmbeddedCII(data)
	if !ok {
		return Document{}, ErrNoStructuredData
	}
	return parseCII(FormatFacturX, xmlData)
}

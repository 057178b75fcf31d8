package einvoice

// ParseFacturX extracts the CII invoice a Factur-X, ZUGFeRD 2 or ZUGFeRD 1.0 PDF carries as an embedded
// file. The first embedded file whose XML root is a CII CrossIndustryInvoice or a ZUGFeRD 1.0
// CrossIndustryDocument is used, whatever its name; failing one, the first other UN/CEFACT message (an
// Order-X order), which is refused with Code CodeNotAnInvoice. A PDF without one
// gives ErrNoStructuredData (the pipeline then asks a person), as an *EmbeddedFileError saying why when
// an embedded file could not be decoded, unless carving stopped at a cap before finding one, which gives
// a *ParseError with Code CodeInputCap; an embedded CII that cannot be read gives a *ParseError for
// FormatFacturX.
func ParseFacturX(data []byte) (Document, error) {
	return parseFacturX(nil, data)
}

func parseFacturX(dl *Deadline, data []byte) (Document, error) {
	xmlData, err := carveCII(dl, data)
	if err != nil {
		return Document{}, err
	}
	if xmlData == nil {
		return Document{}, ErrNoStructuredData
	}
	if root, _ := xmlRoot(xmlData); root.Space == nsZUGFeRD1 {
		return parseZUGFeRD1(dl, FormatFacturX, xmlData)
	}
	return parseCII(dl, FormatFacturX, xmlData)
}

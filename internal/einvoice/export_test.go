package einvoice

// Internals the package's external tests check directly.
var (
	SellerIdentity   = sellerIdentity
	NormaliseID      = normaliseID
	NormaliseName    = normaliseName
	NormaliseNumber  = normaliseNumber
	SchematronRound2 = schematronRound2
)

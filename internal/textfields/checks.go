package textfields

import (
	"regexp"
	"strconv"
	"strings"

	"greatbook/internal/apchecks"
	"greatbook/internal/money"
)

// vatCheck is what a VAT id's checking says: its shape is unknown, it has
// its country's shape (no public check digits tested), its check digits
// hold, or they fail.
type vatCheck int

const (
	vatUnknown vatCheck = iota
	vatShape
	vatValid
	vatInvalid
)

// vatShapes are the formats of the EU member states' VAT ids (and the
// British and Swiss ones), after the two-letter prefix.
var vatShapes = map[string]*regexp.Regexp{
	"AT": regexp.MustCompile(`^U\d{8}$`),
	"BE": regexp.MustCompile(`^[01]\d{9}$`),
	"BG": regexp.MustCompile(`^\d{9,10}$`),
	"CY": regexp.MustCompile(`^\d{8}[A-Z]$`),
	"CZ": regexp.MustCompile(`^\d{8,10}$`),
	"DE": regexp.MustCompile(`^\d{9}$`),
	"DK": regexp.MustCompile(`^\d{8}$`),
	"EE": regexp.MustCompile(`^\d{9}$`),
	"EL": regexp.MustCompile(`^\d{9}$`),
	"ES": regexp.MustCompile(`^[0-9A-Z]\d{7}[0-9A-Z]$`),
	"FI": regexp.MustCompile(`^\d{8}$`),
	"FR": regexp.MustCompile(`^[0-9A-HJ-NP-Z]{2}\d{9}$`),
	"HR": regexp.MustCompile(`^\d{11}$`),
	"HU": regexp.MustCompile(`^\d{8}$`),
	"IE": regexp.MustCompile(`^\d[0-9A-Z+*]\d{5}[A-Z]{1,2}$`),
	"IT": regexp.MustCompile(`^\d{11}$`),
	"LT": regexp.MustCompile(`^(\d{9}|\d{12})$`),
	"LU": regexp.MustCompile(`^\d{8}$`),
	"LV": regexp.MustCompile(`^\d{11}$`),
	"MT": regexp.MustCompile(`^\d{8}$`),
	"NL": regexp.MustCompile(`^\d{9}B\d{2}$`),
	"PL": regexp.MustCompile(`^\d{10}$`),
	"PT": regexp.MustCompile(`^\d{9}$`),
	"RO": regexp.MustCompile(`^\d{2,10}$`),
	"SE": regexp.MustCompile(`^\d{10}01$`),
	"SI": regexp.MustCompile(`^\d{8}$`),
	"SK": regexp.MustCompile(`^\d{10}$`),
	"GB": regexp.MustCompile(`^(\d{9}|\d{12}|GD\d{3}|HA\d{3})$`),
	"XI": regexp.MustCompile(`^(\d{9}|\d{12})$`),
	"CH": regexp.MustCompile(`^E\d{9}(MWST|TVA|IVA)?$`),
}

// normaliseVATID is a VAT id upper case without separators, the Swiss
// one's trailing MWST/TVA/IVA kept.
func normaliseVATID(s string) string { return apchecks.NormalizeVATID(s) }

// checkVATID checks a normalised VAT id: its country's shape, and the
// check digits of the countries that publish a cheap rule (DE, AT, BE, FR
// numeric keys, NL, CH).
func checkVATID(id string) vatCheck {
	if len(id) < 4 {
		return vatUnknown
	}
	country, rest := id[:2], id[2:]
	shape, ok := vatShapes[country]
	if !ok || !shape.MatchString(rest) {
		return vatUnknown
	}
	var valid bool
	switch country {
	case "DE":
		valid = mod1110(rest)
	case "AT":
		valid = austrianUID(rest[1:])
	case "BE":
		n, _ := strconv.ParseInt(rest[:8], 10, 64)
		c, _ := strconv.Atoi(rest[8:])
		valid = 97-n%97 == int64(c)
	case "FR":
		if !allDigits(rest[:2]) {
			return vatShape
		}
		siren, _ := strconv.ParseInt(rest[2:], 10, 64)
		key, _ := strconv.ParseInt(rest[:2], 10, 64)
		valid = (12+3*(siren%97))%97 == key
	case "NL":
		valid = dutchElevenTest(rest[:9]) || mod97(ibanDigits("NL"+rest)) == 1
	case "CH":
		valid = swissUID(rest[1:10])
	default:
		return vatShape
	}
	if valid {
		return vatValid
	}
	return vatInvalid
}

// mod1110 is ISO 7064 MOD 11,10 over nine digits (the German USt-IdNr.).
func mod1110(s string) bool {
	product := 10
	for i := 0; i < 8; i++ {
		sum := (int(s[i]-'0') + product) % 10
		if sum == 0 {
			sum = 10
		}
		product = (2 * sum) % 11
	}
	check := 11 - product
	if check == 10 {
		check = 0
	}
	return check == int(s[8]-'0')
}

// austrianUID checks the eight digits after ATU.
func austrianUID(s string) bool {
	sum := 0
	for i := 0; i < 7; i++ {
		d := int(s[i] - '0')
		if i%2 == 1 {
			d *= 2
			d = d/10 + d%10
		}
		sum += d
	}
	return (10-(sum+4)%10)%10 == int(s[7]-'0')
}

// dutchElevenTest is the weighted eleven-test of a Dutch VAT id's nine
// digits (the mod-97 rule of newer ids is tested beside it).
func dutchElevenTest(s string) bool {
	sum := 0
	for i := 0; i < 8; i++ {
		sum += int(s[i]-'0') * (9 - i)
	}
	r := sum % 11
	return r != 10 && r == int(s[8]-'0')
}

// swissUID checks the nine digits of a Swiss UID (CHE-123.456.789).
func swissUID(s string) bool {
	weights := []int{5, 4, 3, 2, 7, 6, 5, 4}
	sum := 0
	for i, w := range weights {
		sum += int(s[i]-'0') * w
	}
	c := 11 - sum%11
	if c == 11 {
		c = 0
	}
	return c != 10 && c == int(s[8]-'0')
}

// ibanDigits writes letters as numbers (A=10 ... Z=35), as the mod-97
// checks of IBANs and Dutch VAT ids do.
func ibanDigits(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteString(strconv.Itoa(int(r-'A') + 10))
		}
	}
	return b.String()
}

func mod97(digits string) int {
	r := 0
	for i := 0; i < len(digits); i++ {
		r = (r*10 + int(digits[i]-'0')) % 97
	}
	return r
}

// validIBAN is s as an electronic IBAN when it passes ISO 13616's country
// length and mod-97 check.
func validIBAN(s string) (string, bool) {
	iban, err := apchecks.ValidIBAN(s)
	return iban, err == nil
}

// looksLikeIBANStart says whether a word can open an IBAN: two letters and
// two digits.
func looksLikeIBANStart(s string) bool {
	s = strings.ToUpper(s)
	digitLike := func(c byte) bool { return isDigitByte(c) || c == 'O' } // an OCR's O for 0
	return len(s) >= 4 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z' && digitLike(s[2]) && digitLike(s[3]) &&
		(isDigitByte(s[2]) || isDigitByte(s[3]))
}

// check raises the confidence of values that pass their checks and lowers
// that of values that fail them.
func (r *reader) check(chosen map[string]candidate) {
	set := func(f string, conf float64) {
		c := chosen[f]
		c.Confidence = conf
		chosen[f] = c
	}
	if c, ok := chosen[FieldIBAN]; ok {
		if _, valid := validIBAN(c.Value); valid {
			set(FieldIBAN, min(0.99, max(c.Confidence+0.1, 0.9*ocrFactor(nil))))
		} else {
			set(FieldIBAN, min(c.Confidence, 0.5))
		}
	}
	for _, f := range []string{FieldSellerVAT, kindBuyerVAT} {
		c, ok := chosen[f]
		if !ok {
			continue
		}
		switch checkVATID(c.Value) {
		case vatValid:
			set(f, min(0.99, max(c.Confidence+0.1, 0.85)))
		case vatInvalid:
			set(f, min(c.Confidence, 0.5))
		case vatUnknown:
			set(f, min(c.Confidence, 0.6))
		}
	}
	n, okN := chosen[FieldNet]
	t, okT := chosen[FieldTax]
	p, okP := chosen[FieldPayable]
	if okN && okT && okP {
		if n.amount.Add(t.amount).Equal(p.amount) {
			for _, f := range []string{FieldNet, FieldTax, FieldPayable} {
				set(f, max(chosen[f].Confidence, 0.95))
			}
		} else {
			for _, f := range []string{FieldNet, FieldTax, FieldPayable} {
				set(f, min(chosen[f].Confidence, 0.6))
			}
		}
	}
	for _, f := range []string{FieldIssueDate, FieldDueDate} {
		if c, ok := chosen[f]; ok && !plausibleDate(c.Value, r.now) {
			set(f, min(c.Confidence, 0.4))
		}
	}
	if due, ok := chosen[FieldDueDate]; ok {
		if issue, ok := chosen[FieldIssueDate]; ok && due.Value < issue.Value {
			set(FieldDueDate, min(due.Confidence, 0.5))
		}
	}
	if c, ok := chosen[FieldCurrency]; ok {
		if _, known := money.Lookup(c.Value); !known {
			set(FieldCurrency, min(c.Confidence, 0.3))
		}
	}
}

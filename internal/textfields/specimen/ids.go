package specimen

import (
	"fmt"
	"math/rand"
	"strings"
)

// vatID returns a VAT identification number of country (DE, FR, NL, BE, AT
// or GB) whose check digits are right, drawn from r.
func vatID(country string, r *rand.Rand) string {
	switch country {
	case "DE":
		d := digits(r, 8, true)
		return "DE" + d + string(rune('0'+germanCheck(d)))
	case "FR":
		siren := digits(r, 8, true)
		siren += string(rune('0' + luhnCheck(siren)))
		return fmt.Sprintf("FR%02d%s", frenchKey(siren), siren)
	case "NL":
		for {
			d := digits(r, 8, false)
			if c := dutchCheck(d); c < 10 {
				return fmt.Sprintf("NL%s%dB%02d", d, c, 1+r.Intn(3))
			}
		}
	case "BE":
		d := "0" + digits(r, 7, true)
		return fmt.Sprintf("BE%s%02d", d, belgianCheck(d))
	case "AT":
		d := digits(r, 7, true)
		return "ATU" + d + string(rune('0'+austrianCheck(d)))
	case "GB":
		d := digits(r, 7, true)
		return fmt.Sprintf("GB%s%02d", d, britishCheck(d))
	}
	panic("specimen: no VAT id scheme for " + country)
}

// ValidVATID reports whether id's check digits are right, for the
// countries vatID draws from.
func ValidVATID(id string) bool {
	id = strings.ToUpper(strings.ReplaceAll(id, " ", ""))
	if len(id) < 4 {
		return false
	}
	body := id[2:]
	switch id[:2] {
	case "DE":
		return len(body) == 9 && allDigits(body) && germanCheck(body[:8]) == int(body[8]-'0')
	case "FR":
		return len(body) == 11 && allDigits(body) && fmt.Sprintf("%02d", frenchKey(body[2:])) == body[:2]
	case "NL":
		return len(body) == 12 && allDigits(body[:9]) && body[9] == 'B' && dutchCheck(body[:8]) == int(body[8]-'0')
	case "BE":
		return len(body) == 10 && allDigits(body) && fmt.Sprintf("%02d", belgianCheck(body[:8])) == body[8:]
	case "AT":
		return len(body) == 9 && body[0] == 'U' && allDigits(body[1:]) && austrianCheck(body[1:8]) == int(body[8]-'0')
	case "GB":
		return len(body) == 9 && allDigits(body) && fmt.Sprintf("%02d", britishCheck(body[:7])) == body[7:]
	}
	return false
}

// germanCheck is the ISO 7064 MOD 11,10 check digit of the German USt-IdNr.
func germanCheck(d string) int {
	product := 10
	for _, c := range d {
		sum := (int(c-'0') + product) % 10
		if sum == 0 {
			sum = 10
		}
		product = (2 * sum) % 11
	}
	check := 11 - product
	if check == 10 {
		check = 0
	}
	return check
}

// frenchKey is the two-digit key before the SIREN in a French TVA number.
func frenchKey(siren string) int { return (12 + 3*mod97(siren)) % 97 }

// dutchCheck is the ninth digit of a Dutch btw-id by the eleven test (10 is
// no digit: such numbers are not issued).
func dutchCheck(d string) int {
	sum := 0
	for i, c := range d {
		sum += int(c-'0') * (9 - i)
	}
	return sum % 11
}

// belgianCheck is the last two digits of a Belgian enterprise number.
func belgianCheck(d string) int { return 97 - mod97(d) }

// austrianCheck is the last digit of an Austrian UID after the U.
func austrianCheck(d string) int {
	s := 0
	for i, c := range d {
		v := int(c - '0')
		if i%2 == 1 {
			v *= 2
			v = v/10 + v%10
		}
		s += v
	}
	return (10 - (s+4)%10) % 10
}

// britishCheck is the two check digits of a British VAT registration number.
func britishCheck(d string) int {
	sum := 0
	for i, c := range d {
		sum += int(c-'0') * (8 - i)
	}
	return (97 - sum%97) % 97
}

// luhnCheck is the Luhn check digit appended to d (a SIREN's last digit).
func luhnCheck(d string) int {
	sum := 0
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if (len(d)-1-i)%2 == 0 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return (10 - sum%10) % 10
}

// iban returns an IBAN of country with a right national check (where the
// country has one) and right ISO 13616 check digits. bank is the bank part
// of the national number (letters for NL and GB, digits elsewhere).
func iban(country, bank string, r *rand.Rand) string {
	var bban string
	switch country {
	case "DE":
		bban = bank + digits(r, 10, true)
	case "FR":
		branch, account := digits(r, 5, false), digits(r, 11, false)
		key := 97 - (89*mod97(bank)+15*mod97(branch)+3*mod97(account))%97
		bban = fmt.Sprintf("%s%s%s%02d", bank, branch, account, key)
	case "NL":
		bban = bank + digits(r, 10, true)
	case "BE":
		d := bank + digits(r, 7, false)
		c := mod97(d)
		if c == 0 {
			c = 97
		}
		bban = fmt.Sprintf("%s%02d", d, c)
	case "AT":
		bban = bank + digits(r, 11, true)
	case "GB":
		bban = bank + digits(r, 6, true) + digits(r, 8, true)
	default:
		panic("specimen: no IBAN scheme for " + country)
	}
	return fmt.Sprintf("%s%02d%s", country, 98-mod97(ibanDigits(bban+country+"00")), bban)
}

// groupIBAN writes an IBAN in groups of four, as invoices print it.
func groupIBAN(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ibanDigits replaces letters by two digits each (A=10 … Z=35).
func ibanDigits(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= 'A' && c <= 'Z' {
			fmt.Fprintf(&b, "%d", c-'A'+10)
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// mod97 is the remainder of the decimal number d (of any length) by 97.
func mod97(d string) int {
	m := 0
	for _, c := range d {
		m = (m*10 + int(c-'0')) % 97
	}
	return m
}

func digits(r *rand.Rand, n int, nonZeroFirst bool) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.Intn(10))
	}
	if nonZeroFirst && n > 0 {
		b[0] = byte('1' + r.Intn(9))
	}
	return string(b)
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

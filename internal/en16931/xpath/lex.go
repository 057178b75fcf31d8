package xpath

import (
	"fmt"
	"strings"
)

type tokKind uint8

const (
	tEOF  tokKind = iota
	tName         // a QName, NCName:*, *:NCName, or * (as a name test)
	tNumber
	tString
	tVar
	tOp // punctuation and operators
)

type token struct {
	kind tokKind
	text string
	pos  int
	len  int // of the source it was read from
}

func (t token) end() int { return t.pos + t.len }

// lex splits an expression into tokens. A name followed by "::" or "(" and
// operator words are told apart by the parser, which knows the position.
func lex(src string) ([]token, error) {
	var out []token
	i := 0
	isNameStart := func(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 }
	isName := func(c byte) bool { return isNameStart(c) || c == '-' || c == '.' || c >= '0' && c <= '9' }
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' && i+1 < len(src) && src[i+1] == ':':
			end := strings.Index(src[i:], ":)")
			if end < 0 {
				return nil, fmt.Errorf("xpath: unclosed comment at %d", i)
			}
			i += end + 2
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(src) {
					return nil, fmt.Errorf("xpath: unclosed string at %d", i)
				}
				if src[j] == c {
					if j+1 < len(src) && src[j+1] == c {
						b.WriteByte(c)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(src[j])
				j++
			}
			out = append(out, token{tString, b.String(), i, j + 1 - i})
			i = j + 1
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			for j < len(src) && (src[j] >= '0' && src[j] <= '9') {
				j++
			}
			if j < len(src) && src[j] == '.' {
				j++
				for j < len(src) && src[j] >= '0' && src[j] <= '9' {
					j++
				}
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && src[k] >= '0' && src[k] <= '9' {
					for k < len(src) && src[k] >= '0' && src[k] <= '9' {
						k++
					}
					j = k
				}
			}
			out = append(out, token{tNumber, src[i:j], i, j - i})
			i = j
		case c == '$':
			j := i + 1
			for j < len(src) && (isName(src[j]) || src[j] == ':') {
				j++
			}
			out = append(out, token{tVar, src[i+1 : j], i, j - i})
			i = j
		case isNameStart(c) || c == '*' && i+1 < len(src) && src[i+1] == ':' && i+2 < len(src) && isNameStart(src[i+2]):
			j := i
			if c == '*' {
				j += 2
			}
			for j < len(src) && isName(src[j]) {
				j++
			}
			// prefix:local or prefix:*, but not the axis separator "::"
			if j+1 < len(src) && src[j] == ':' && src[j+1] != ':' {
				if src[j+1] == '*' {
					j += 2
				} else if isNameStart(src[j+1]) {
					j++
					for j < len(src) && isName(src[j]) {
						j++
					}
				}
			}
			out = append(out, token{tName, src[i:j], i, j - i})
			i = j
		default:
			for _, op := range []string{"//", "::", "!=", "<=", ">=", "..", "/", "(", ")", "[", "]", "@", ",", ".", "|", "+", "-", "*", "=", "<", ">", "?"} {
				if strings.HasPrefix(src[i:], op) {
					out = append(out, token{tOp, op, i, len(op)})
					i += len(op)
					goto next
				}
			}
			return nil, fmt.Errorf("xpath: unexpected %q at %d", c, i)
		next:
		}
	}
	return append(out, token{tEOF, "", len(src), 0}), nil
}

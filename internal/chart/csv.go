package chart

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"greatbook/internal/apperr"
	"greatbook/internal/ledger"
)

// The bounds of an import: a file of at most MaxImportBytes and
// MaxImportRows rows besides its header, read in one pass.
const (
	MaxImportBytes = 2 << 20
	MaxImportRows  = 10000
)

// AccountRow is an account as a chart file lists it: Active nil keeps an
// existing account's state (a new account is active).
type AccountRow struct {
	Line   int
	Code   string
	Name   string
	Type   ledger.AccountType
	Active *bool
}

// ValueRow is a dimension value as a values file lists it.
type ValueRow struct {
	Line int
	ValueChange
}

// ParseAccounts reads a chart of accounts file: a header row naming the
// columns code, name, type and optionally active (in any order), then one
// account a row. Every fault of the file is named by its line.
func ParseAccounts(data []byte) ([]AccountRow, error) {
	t, err := readTable(data, []string{"code", "name", "type"})
	if err != nil {
		return nil, err
	}
	out := make([]AccountRow, 0, len(t.rows))
	seen := make(map[string]int, len(t.rows))
	for i, r := range t.rows {
		a := AccountRow{Line: t.lines[i], Code: t.get(r, "code"), Name: t.get(r, "name"), Type: ledger.AccountType(strings.ToLower(t.get(r, "type")))}
		msgs := []string{checkCode(a.Code), checkName(a.Name), checkType(a.Type)}
		a.Active, msgs = t.active(r, msgs)
		if first, dup := seen[a.Code]; dup && a.Code != "" {
			msgs = append(msgs, fmt.Sprintf("account %s is on line %d already", a.Code, first))
		}
		seen[a.Code] = a.Line
		t.fault(a.Line, msgs)
		out = append(out, a)
	}
	return out, t.err()
}

// ParseValues reads a dimension values file: a header row naming the
// columns code, name and optionally active, then one value a row. Every
// fault of the file is named by its line.
func ParseValues(data []byte) ([]ValueRow, error) {
	t, err := readTable(data, []string{"code", "name"})
	if err != nil {
		return nil, err
	}
	out := make([]ValueRow, 0, len(t.rows))
	seen := make(map[string]int, len(t.rows))
	for i, r := range t.rows {
		v := ValueRow{Line: t.lines[i], ValueChange: ValueChange{Code: t.get(r, "code"), Name: t.get(r, "name")}}
		msgs := []string{checkCode(v.Code), checkName(v.Name)}
		v.Active, msgs = t.active(r, msgs)
		if first, dup := seen[v.Code]; dup && v.Code != "" {
			msgs = append(msgs, fmt.Sprintf("value %s is on line %d already", v.Code, first))
		}
		seen[v.Code] = v.Line
		t.fault(v.Line, msgs)
		out = append(out, v)
	}
	return out, t.err()
}

// table is a CSV file read: its columns by name, its rows and the line each
// starts on, and the faults found so far.
type table struct {
	columns map[string]int
	rows    [][]string
	lines   []int
	faults  []Fault
}

// readTable checks a file at the door (size, NUL bytes, UTF-8), drops a
// byte order mark, takes the delimiter from the header (a semicolon where
// the header has one and no comma) and reads the rows. The header must
// name the required columns; active is the one optional column.
func readTable(data []byte, required []string) (*table, error) {
	if len(data) > MaxImportBytes {
		return nil, apperr.New(apperr.TooLarge, "the file is larger than %d bytes", MaxImportBytes)
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, fileFault(lineOf(data, i), "the file contains a NUL byte: it is not a CSV text file")
	}
	if !utf8.Valid(data) {
		return nil, fileFault(lineOf(data, invalidUTF8At(data)), "the file is not UTF-8 text")
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	header, _, _ := bytes.Cut(data, []byte("\n"))
	r := csv.NewReader(bytes.NewReader(data))
	if bytes.IndexByte(header, ';') >= 0 && bytes.IndexByte(header, ',') < 0 {
		r.Comma = ';'
	}
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	r.ReuseRecord = false
	t := &table{columns: map[string]int{}}
	head, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, fileFault(1, fmt.Sprintf("the file is empty: its first line is the header %s", strings.Join(required, ",")))
	}
	if err != nil {
		return nil, csvFault(err)
	}
	for i, name := range head {
		name = strings.ToLower(strings.TrimSpace(name))
		allowed := name == "active"
		for _, c := range required {
			allowed = allowed || name == c
		}
		switch _, dup := t.columns[name]; {
		case !allowed:
			t.fault(1, []string{fmt.Sprintf("column %q is not one of %s,active", clip(name), strings.Join(required, ","))})
		case dup:
			t.fault(1, []string{fmt.Sprintf("column %s is named twice", name)})
		default:
			t.columns[name] = i
		}
	}
	for _, c := range required {
		if _, ok := t.columns[c]; !ok {
			t.fault(1, []string{fmt.Sprintf("the header has no column %s (it is %s[,active])", c, strings.Join(required, ","))})
		}
	}
	if len(t.faults) > 0 {
		return nil, t.err()
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvFault(err)
		}
		line, _ := r.FieldPos(0)
		if len(t.rows) == MaxImportRows {
			return nil, apperr.New(apperr.TooLarge, "the file has more than %d rows (line %d)", MaxImportRows, line)
		}
		if len(rec) != len(head) {
			t.fault(line, []string{fmt.Sprintf("%d fields, the header has %d", len(rec), len(head))})
			continue
		}
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		t.rows, t.lines = append(t.rows, rec), append(t.lines, line)
	}
	if len(t.rows) == 0 && len(t.faults) == 0 {
		return nil, fileFault(2, "the file has a header and no rows")
	}
	return t, nil
}

func (t *table) get(r []string, column string) string { return r[t.columns[column]] }

// active reads a row's active column: true, false, yes, no, 1, 0, or empty
// (nil: an existing item keeps its state).
func (t *table) active(r []string, msgs []string) (*bool, []string) {
	i, ok := t.columns["active"]
	if !ok {
		return nil, msgs
	}
	switch strings.ToLower(r[i]) {
	case "":
		return nil, msgs
	case "true", "yes", "1":
		return new(true), msgs
	case "false", "no", "0":
		return new(false), msgs
	}
	return nil, append(msgs, fmt.Sprintf("active %q is not true or false", clip(r[i])))
}

// fault notes the non-empty messages of line.
func (t *table) fault(line int, msgs []string) {
	for _, m := range msgs {
		if m != "" {
			t.faults = append(t.faults, Fault{Field: fmt.Sprintf("line %d", line), Message: m})
		}
	}
}

func (t *table) err() error {
	if len(t.faults) == 0 {
		return nil
	}
	return invalid("the file is not valid", t.faults)
}

func fileFault(line int, msg string) error {
	return invalid("the file is not valid", []Fault{{Field: fmt.Sprintf("line %d", line), Message: msg}})
}

// csvFault names the line of a fault of the CSV syntax (a stray quote).
func csvFault(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fileFault(pe.Line, pe.Err.Error())
	}
	return fileFault(1, err.Error())
}

// lineOf is the 1-based line of byte offset i.
func lineOf(data []byte, i int) int { return bytes.Count(data[:i], []byte("\n")) + 1 }

// invalidUTF8At is the offset of the first byte that is not UTF-8.
func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}

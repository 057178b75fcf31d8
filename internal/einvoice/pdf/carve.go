package pdf

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"greatbook/internal/einvoice"
)

// attachment is one embedded file carved out of a PDF.
type attachment struct {
	Object int    // the object number of the stream that holds the file
	Name   string // the file name its file specification gives, when one does
	Data   []byte // the decoded content
}

// capTime is the cap carving stops at when the document's time is up: the deadline's own input_cap.
const capTime = "time"

// Limits that keep a hostile PDF from costing unbounded memory or time. Deflate packs a thousand to one,
// so a 20 MiB upload could otherwise ask for gigabytes.
const (
	maxAttachmentSize = 16 << 20 // decoded bytes per stream
	maxDecodedTotal   = 64 << 20 // decoded bytes per PDF, object streams included
	maxPDFObjects     = 200_000
	maxAttachments    = 64
	maxPDFDepth       = 32 // nesting of arrays and dictionaries
	// maxFilterChain is the most FlateDecode filters one stream may chain: a file compressed a few
	// times over is read, each stage within the same caps as one; more is refused with a reason.
	maxFilterChain = 8
	// pdfWorkFactor bounds the lexer's work: it may scan at most this many bytes for each byte of the
	// file and of the object streams it decodes. A well-formed PDF is read about once; a hostile one
	// (objects that all point at one unterminated string) stops there instead of growing quadratically.
	pdfWorkFactor = 4
)

type (
	pdfName    string
	pdfString  []byte
	pdfKeyword string
	pdfArray   []any
	pdfDict    map[pdfName]any
	pdfRef     struct{ num, gen int }
)

type pdfObject struct {
	num       int
	offset    int // where the object starts; objects from an object stream take the stream's offset
	value     any
	hasStream bool
	raw       []byte // undecoded stream data
	data      []byte // the whole file, to re-slice raw once an indirect /Length is known
	start     int    // offset of the first stream byte in data
}

type pdfCarver struct {
	data    []byte
	objects map[int]*pdfObject
	budget  int // decoded bytes still allowed
	parsed  int // objects attempted, read or not: each costs work
	work    pdfWork
	capped  string             // the cap carving stopped at, if any
	dl      *einvoice.Deadline // the end of the document's time, looked at as work is charged
	// undecoded is the first candidate attachment that could not be decoded, an XML file's first.
	undecoded *einvoice.EmbeddedFileError
}

// pdfWork counts the bytes the lexers scan, against a limit that grows with the bytes there are to read.
type pdfWork struct {
	scanned, limit int
}

// capError describes the cap carving stopped at, nil when it read everything.
func (c *pdfCarver) capError() *einvoice.ParseError {
	var reason string
	switch c.capped {
	case "":
		return nil
	case "pdf_work":
		reason = fmt.Sprintf("the PDF carver stopped after scanning %d bytes (cap: %d times the file and its decoded object streams)", c.work.scanned, pdfWorkFactor)
	case "pdf_objects":
		reason = fmt.Sprintf("the PDF has more than %d objects", maxPDFObjects)
	case "pdf_decoded_bytes":
		reason = fmt.Sprintf("the PDF's streams decode to more than %d bytes (cap %d per stream, %d in all)", maxDecodedTotal-c.budget, maxAttachmentSize, maxDecodedTotal)
	case capTime:
		return c.dl.CapError(einvoice.FormatFacturX)
	}
	return einvoice.CapErrorf(einvoice.FormatFacturX, c.capped, "%s", reason)
}

func (c *pdfCarver) stop(limit string) {
	if c.capped == "" {
		c.capped = limit
	}
}

// lexer returns a lexer at pos in data that can scan no further than the work left.
func (c *pdfCarver) lexer(data []byte, pos int) *pdfLexer {
	room := max(c.work.limit-c.work.scanned, 0)
	end := len(data)
	if end-pos > room {
		end = pos + room
	}
	return &pdfLexer{data: data[:end], pos: pos, start: pos, cut: end < len(data)}
}

// charge counts what a lexer scanned, and stops the carving once the work is spent or the time is up.
func (c *pdfCarver) charge(l *pdfLexer) {
	c.work.scanned += max(l.far, l.pos) - l.start
	if l.cut && max(l.far, l.pos) >= len(l.data) || c.work.scanned >= c.work.limit {
		c.stop("pdf_work")
	}
	// An object is a large unit of work (a hostile one scans megabytes), so the clock is read for each.
	if c.dl.Passed() {
		c.stop(capTime)
	}
}

var pdfObjectHeader = regexp.MustCompile(`(\d{1,10})[\x00\t\n\f\r ]+(\d{1,5})[\x00\t\n\f\r ]+obj`)

// carvePDF carves a PDF without interpreting the document, stopping once dl has passed: it scans for
// indirect objects, and eachAttachment then takes every stream whose dictionary says /Type /EmbeddedFile
// and every stream a file specification's /EF entry points to (the /EmbeddedFiles name tree and /AF arrays
// both use those), and decodes them. Only unfiltered and /FlateDecode streams are decoded; a /Length given
// as an indirect reference is resolved, and when it cannot be trusted the stream runs to the next
// "endstream". Object streams (PDF 1.5) are opened so that file specifications stored in them are found.
// Damaged or undecodable objects are skipped, never fatal: the result is whatever could be read, in file
// order.
func carvePDF(dl *einvoice.Deadline, data []byte) *pdfCarver {
	c := &pdfCarver{data: data, objects: map[int]*pdfObject{}, budget: maxDecodedTotal,
		work: pdfWork{limit: pdfWorkFactor * len(data)}, dl: dl}
	pos := 0
	for pos < len(data) && c.capped == "" {
		if c.parsed >= maxPDFObjects {
			c.stop("pdf_objects")
			break
		}
		loc := pdfObjectHeader.FindSubmatchIndex(data[pos:])
		if loc == nil {
			break
		}
		start, headerEnd := pos+loc[0], pos+loc[1]
		if headerEnd < len(data) && !isPDFDelimiterOrSpace(data[headerEnd]) {
			pos = headerEnd
			continue
		}
		num, err := strconv.Atoi(string(data[pos+loc[2] : pos+loc[3]]))
		if err != nil {
			pos = headerEnd
			continue
		}
		obj, end, ok := c.parseIndirect(num, start, headerEnd)
		c.parsed++
		if !ok {
			pos = headerEnd
			continue
		}
		c.objects[num] = obj // a later definition (incremental update) replaces an earlier one
		pos = max(end, headerEnd)
	}
	c.resolveIndirectLengths()
	c.openObjectStreams()
	return c
}

// parseIndirect parses the object whose "N G obj" header ends at headerEnd.
func (c *pdfCarver) parseIndirect(num, start, headerEnd int) (*pdfObject, int, bool) {
	lex := c.lexer(c.data, headerEnd)
	defer c.charge(lex)
	value, ok := lex.value(0)
	if !ok {
		return nil, 0, false
	}
	obj := &pdfObject{num: num, offset: start, value: value}
	afterValue := lex.pos
	tok, ok := lex.token()
	if !ok {
		return obj, afterValue, true
	}
	switch tok {
	case pdfKeyword("endobj"):
		return obj, lex.pos, true
	case pdfKeyword("stream"):
	default:
		return obj, afterValue, true
	}
	dict, isDict := value.(pdfDict)
	if !isDict {
		return obj, lex.pos, true
	}
	begin := lex.pos
	if begin < len(c.data) && c.data[begin] == '\r' {
		begin++
	}
	if begin < len(c.data) && c.data[begin] == '\n' {
		begin++
	}
	obj.hasStream, obj.data, obj.start = true, c.data, begin
	end := -1
	if length, ok := dict["Length"].(int64); ok {
		end = streamEndAt(c.data, begin, length)
	}
	if end < 0 {
		end = scanEndstream(c.data, begin)
	}
	obj.raw = c.data[begin:end]
	next := end
	if i := bytes.Index(c.data[end:min(len(c.data), end+64)], []byte("endstream")); i >= 0 {
		next = end + i + len("endstream")
	}
	lex.pos = min(next, len(lex.data))
	if tok, ok := lex.token(); ok && tok == pdfKeyword("endobj") {
		next = lex.pos
	}
	return obj, next, true
}

// streamEndAt returns begin+length when that is where the stream's data ends (only whitespace before
// "endstream"), and -1 when /Length cannot be trusted.
func streamEndAt(data []byte, begin int, length int64) int {
	if length < 0 || length > int64(len(data)-begin) {
		return -1
	}
	end := begin + int(length)
	rest := bytes.TrimLeft(data[end:min(len(data), end+32)], "\x00\t\n\f\r ")
	if !bytes.HasPrefix(rest, []byte("endstream")) {
		return -1
	}
	return end
}

// scanEndstream finds the end of stream data without a usable /Length: the next "endstream", less the
// end-of-line marker before it; the end of the file when there is none.
func scanEndstream(data []byte, begin int) int {
	i := bytes.Index(data[begin:], []byte("endstream"))
	if i < 0 {
		return len(data)
	}
	end := begin + i
	if end > begin && data[end-1] == '\n' {
		end--
	}
	if end > begin && data[end-1] == '\r' {
		end--
	}
	return end
}

// resolveIndirectLengths re-slices streams whose /Length is a reference to an integer object, now that
// every object is known; a trusted length survives an "endstream" inside compressed data.
func (c *pdfCarver) resolveIndirectLengths() {
	for _, obj := range c.objects {
		if !obj.hasStream {
			continue
		}
		ref, ok := obj.value.(pdfDict)["Length"].(pdfRef)
		if !ok {
			continue
		}
		target, ok := c.objects[ref.num]
		if !ok || target.hasStream {
			continue
		}
		if length, ok := target.value.(int64); ok {
			if end := streamEndAt(obj.data, obj.start, length); end >= 0 {
				obj.raw = obj.data[obj.start:end]
			}
		}
	}
}

// openObjectStreams adds the objects stored in /Type /ObjStm streams, unless a direct object with the
// same number exists.
func (c *pdfCarver) openObjectStreams() {
	streams := make([]*pdfObject, 0)
	for _, obj := range c.objects {
		if obj.hasStream && obj.value.(pdfDict)["Type"] == pdfName("ObjStm") {
			streams = append(streams, obj)
		}
	}
	slices.SortFunc(streams, func(a, b *pdfObject) int { return a.offset - b.offset })
	for _, s := range streams {
		if c.capped != "" {
			return
		}
		dict := s.value.(pdfDict)
		data, _, ok := c.decode(dict, s.raw)
		if !ok {
			continue
		}
		c.work.limit += pdfWorkFactor * len(data)
		n, okN := dict["N"].(int64)
		first, okFirst := dict["First"].(int64)
		if !okN || !okFirst || n < 0 || first < 0 || first > int64(len(data)) {
			continue
		}
		header := c.lexer(data[:first], 0)
		for i := int64(0); i < n && c.capped == ""; i++ {
			if c.parsed >= maxPDFObjects {
				c.stop("pdf_objects")
				break
			}
			numTok, ok1 := header.token()
			offTok, ok2 := header.token()
			num, isInt1 := numTok.(int64)
			off, isInt2 := offTok.(int64)
			if !ok1 || !ok2 || !isInt1 || !isInt2 || num < 0 || num > 1<<31 || off < 0 || off > int64(len(data))-first {
				break
			}
			c.charge(header)
			header.start = max(header.far, header.pos)
			if _, exists := c.objects[int(num)]; exists {
				continue
			}
			// A failed object costs as much as a stored one: both count against the limits.
			c.parsed++
			lex := c.lexer(data, int(first+off))
			value, ok := lex.value(0)
			c.charge(lex)
			if ok {
				c.objects[int(num)] = &pdfObject{num: int(num), offset: s.offset, value: value}
			}
		}
		c.charge(header)
	}
}

// decode decodes a stream within what is left of the budget.
// Bytes inflated count against the budget whether or not the stream then decodes, so that many bombs
// cost no more than one.
// It returns why a stream that was not capped could not be decoded.
func (c *pdfCarver) decode(dict pdfDict, raw []byte) ([]byte, string, bool) {
	if c.budget <= 0 {
		c.stop("pdf_decoded_bytes")
		return nil, "", false
	}
	if c.dl.Passed() {
		c.stop(capTime)
		return nil, "", false
	}
	d := decodeStream(c.dl, dict, raw, min(maxAttachmentSize, c.budget), c.budget)
	c.budget -= d.produced
	if d.capped {
		c.stop("pdf_decoded_bytes")
		return nil, "", false
	}
	return d.data, d.refusal, d.refusal == ""
}

// eachAttachment decodes the embedded files in file order and hands them to yield until it returns false.
func (c *pdfCarver) eachAttachment(yield func(attachment) bool) {
	ordered := make([]*pdfObject, 0, len(c.objects))
	for _, obj := range c.objects {
		ordered = append(ordered, obj)
	}
	slices.SortFunc(ordered, func(a, b *pdfObject) int {
		if a.offset != b.offset {
			return a.offset - b.offset
		}
		return a.num - b.num
	})

	var candidates []int
	seen := map[int]bool{}
	names := map[int]string{}
	add := func(num int) {
		if !seen[num] {
			seen[num] = true
			candidates = append(candidates, num)
		}
	}
	for _, obj := range ordered {
		if obj.hasStream && obj.value.(pdfDict)["Type"] == pdfName("EmbeddedFile") {
			add(obj.num)
		}
	}
	for _, obj := range ordered {
		walkFileSpecs(obj.value, 0, func(spec pdfDict, target pdfRef) {
			if t, ok := c.objects[target.num]; ok && t.hasStream {
				add(target.num)
				if _, named := names[target.num]; !named {
					names[target.num] = fileSpecName(spec)
				}
			}
		})
	}

	decoded := 0
	for _, num := range candidates {
		if decoded >= maxAttachments || c.budget <= 0 || c.capped == capTime {
			return
		}
		obj := c.objects[num]
		data, refusal, ok := c.decode(obj.value.(pdfDict), obj.raw)
		if !ok {
			c.noteUndecoded(num, names[num], refusal)
			continue
		}
		decoded++
		if !yield(attachment{Object: num, Name: names[num], Data: data}) {
			return
		}
	}
}

// noteUndecoded keeps the first attachment that could not be decoded for a reason (not a cap),
// preferring one named like an XML file: the one a reviewer needs to hear about.
func (c *pdfCarver) noteUndecoded(num int, name, reason string) {
	if reason == "" {
		return
	}
	isXML := func(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".xml") }
	if c.undecoded == nil || isXML(name) && !isXML(c.undecoded.Name) {
		c.undecoded = &einvoice.EmbeddedFileError{Object: num, Name: name, Reason: reason}
	}
}

// walkFileSpecs calls found for every file specification dictionary (one with an /EF entry) inside v,
// with the embedded file stream its /EF names.
func walkFileSpecs(v any, depth int, found func(spec pdfDict, target pdfRef)) {
	if depth > maxPDFDepth {
		return
	}
	switch v := v.(type) {
	case pdfDict:
		if ef, ok := v["EF"].(pdfDict); ok {
			for _, key := range []pdfName{"UF", "F"} {
				if ref, ok := ef[key].(pdfRef); ok {
					found(v, ref)
					break
				}
			}
		}
		keys := make([]pdfName, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			walkFileSpecs(v[k], depth+1, found)
		}
	case pdfArray:
		for _, item := range v {
			walkFileSpecs(item, depth+1, found)
		}
	}
}

func fileSpecName(spec pdfDict) string {
	for _, key := range []pdfName{"UF", "F"} {
		if s, ok := spec[key].(pdfString); ok {
			return decodePDFText(s)
		}
	}
	return ""
}

// decodePDFText reads a PDF text string: UTF-16BE with a byte order mark, otherwise one byte a character.
func decodePDFText(s pdfString) string {
	if len(s) >= 2 && s[0] == 0xFE && s[1] == 0xFF {
		units := make([]uint16, 0, len(s)/2)
		for i := 2; i+1 < len(s); i += 2 {
			units = append(units, uint16(s[i])<<8|uint16(s[i+1]))
		}
		return string(utf16.Decode(units))
	}
	runes := make([]rune, len(s))
	for i, b := range s {
		runes[i] = rune(b)
	}
	return string(runes)
}

// decoded is what decodeStream made of a stream: the data, or why not.
type decoded struct {
	data     []byte
	produced int    // bytes produced, wanted or not
	capped   bool   // a stage passed its limit: the decoded-bytes cap
	refusal  string // why the stream could not be decoded, in words, when it was not capped
}

// decodeStream applies the stream's filters. Only no filter and /FlateDecode (without a predictor) are
// supported, as one filter or a chain of at most maxFilterChain: Factur-X writers use nothing else for
// embedded files. Each stage's output is at most limit bytes, and all stages together at most budget,
// so a chain costs no more than the bytes it produces.
func decodeStream(dl *einvoice.Deadline, dict pdfDict, raw []byte, limit, budget int) decoded {
	var filters []pdfName
	var parms []any
	switch f := dict["Filter"].(type) {
	case nil:
	case pdfName:
		filters = []pdfName{f}
		parms = []any{dict["DecodeParms"]}
	case pdfArray:
		for _, item := range f {
			name, ok := item.(pdfName)
			if !ok {
				return decoded{refusal: "has a /Filter entry that is not a list of filter names"}
			}
			filters = append(filters, name)
		}
		if p, ok := dict["DecodeParms"].(pdfArray); ok {
			parms = p
		}
	default:
		return decoded{refusal: "has a /Filter entry that is not a filter name"}
	}
	if len(filters) == 0 {
		if len(raw) > limit {
			return decoded{produced: len(raw), capped: true}
		}
		return decoded{data: raw, produced: len(raw)}
	}
	for i, f := range filters {
		if f != "FlateDecode" && f != "Fl" {
			return decoded{refusal: fmt.Sprintf("is encoded with /%s, which this reader does not decode (it reads /FlateDecode only)", f)}
		}
		if i < len(parms) {
			if p, ok := parms[i].(pdfDict); ok {
				if predictor, ok := p["Predictor"].(int64); ok && predictor > 1 {
					return decoded{refusal: fmt.Sprintf("is compressed with a predictor (/Predictor %d), which this reader does not undo", predictor)}
				}
			}
		}
	}
	if len(filters) > maxFilterChain {
		return decoded{refusal: fmt.Sprintf("is compressed %d times over (a /Filter chain of %d /FlateDecode), more times than this reader follows (%d)",
			len(filters), len(filters), maxFilterChain)}
	}
	var d decoded
	data := raw
	for range filters {
		stageLimit := min(limit, budget-d.produced)
		out, produced, ok := inflate(dl, data, stageLimit)
		d.produced += produced
		if produced > stageLimit {
			d.capped = true
			return d
		}
		if !ok {
			d.refusal = "has compressed data that is damaged or empty: it does not inflate"
			if len(filters) > 1 {
				d.refusal = fmt.Sprintf("has compressed data that is damaged or empty: it does not inflate %d times over, as its /Filter chain says", len(filters))
			}
			return d
		}
		data = out
	}
	d.data = data
	return d
}

// inflate decompresses zlib data. Some writers get the zlib wrapper wrong, so a stream whose checksum
// fails, or that has no zlib header at all, is read as raw deflate data. Past limit bytes it gives up.
// It returns the bytes produced by every attempt, and stops trying once one passes limit. Reading the
// compressed data fails once dl has passed.
func inflate(dl *einvoice.Deadline, raw []byte, limit int) ([]byte, int, bool) {
	produced := 0
	try := func(open func() (io.ReadCloser, error)) ([]byte, bool) {
		out, n, ok := readLimited(open, limit)
		produced += n
		return out, ok
	}
	zlibReader := func() (io.ReadCloser, error) { return zlib.NewReader(dl.Reader(raw)) }
	if out, ok := try(zlibReader); ok || produced > limit {
		return out, produced, ok
	}
	if len(raw) > 2 && raw[0]&0x0F == 8 && (uint16(raw[0])<<8|uint16(raw[1]))%31 == 0 {
		afterHeader := func() (io.ReadCloser, error) { return flate.NewReader(dl.Reader(raw[2:])), nil }
		if out, ok := try(afterHeader); ok || produced > limit {
			return out, produced, ok
		}
	}
	out, ok := try(func() (io.ReadCloser, error) { return flate.NewReader(dl.Reader(raw)), nil })
	return out, produced, ok
}

// readLimited decompresses what open reads, at most limit bytes, and reports how many it produced. It
// counts first and keeps the bytes only on a second pass into a buffer of the right size, so that a
// bomb refused at the limit costs time but no memory.
func readLimited(open func() (io.ReadCloser, error), limit int) ([]byte, int, bool) {
	count := func(w io.Writer) (int64, error) {
		r, err := open()
		if err != nil {
			return 0, err
		}
		defer r.Close()
		n, err := io.Copy(w, io.LimitReader(r, int64(limit)+1))
		if err == io.ErrUnexpectedEOF {
			err = nil
		}
		return n, err
	}
	n, err := count(io.Discard)
	if err != nil || n > int64(limit) || n == 0 {
		return nil, int(n), false
	}
	out := bytes.NewBuffer(make([]byte, 0, n))
	if m, err := count(out); err != nil || m != n {
		return nil, int(n), false
	}
	return out.Bytes(), int(n), true
}

// pdfLexer reads PDF tokens and values from data.
type pdfLexer struct {
	data  []byte
	pos   int
	start int  // where the lexer began, for the work it is charged
	far   int  // the furthest position a token reached (reference restores pos)
	cut   bool // data ends early because the work budget does
}

func isPDFSpace(b byte) bool {
	return b == 0 || b == '\t' || b == '\n' || b == '\f' || b == '\r' || b == ' '
}

func isPDFDelimiter(b byte) bool {
	return b == '(' || b == ')' || b == '<' || b == '>' || b == '[' || b == ']' || b == '{' || b == '}' || b == '/' || b == '%'
}

func isPDFDelimiterOrSpace(b byte) bool { return isPDFSpace(b) || isPDFDelimiter(b) }

func (l *pdfLexer) skipSpace() {
	for l.pos < len(l.data) {
		b := l.data[l.pos]
		switch {
		case isPDFSpace(b):
			l.pos++
		case b == '%':
			for l.pos < len(l.data) && l.data[l.pos] != '\n' && l.data[l.pos] != '\r' {
				l.pos++
			}
		default:
			return
		}
	}
}

type pdfDelimiter string

// token reads one token: int64, float64, pdfName, pdfString, pdfKeyword, or a pdfDelimiter for
// "<<", ">>", "[" and "]".
func (l *pdfLexer) token() (any, bool) {
	tok, ok := l.scanToken()
	l.far = max(l.far, l.pos)
	return tok, ok
}

func (l *pdfLexer) scanToken() (any, bool) {
	l.skipSpace()
	if l.pos >= len(l.data) {
		return nil, false
	}
	b := l.data[l.pos]
	switch {
	case b == '<' && l.pos+1 < len(l.data) && l.data[l.pos+1] == '<':
		l.pos += 2
		return pdfDelimiter("<<"), true
	case b == '>' && l.pos+1 < len(l.data) && l.data[l.pos+1] == '>':
		l.pos += 2
		return pdfDelimiter(">>"), true
	case b == '[' || b == ']':
		l.pos++
		return pdfDelimiter(string(b)), true
	case b == '/':
		return l.name(), true
	case b == '(':
		return l.literalString()
	case b == '<':
		return l.hexString()
	case b == ')' || b == '>' || b == '{' || b == '}':
		return nil, false
	}
	start := l.pos
	for l.pos < len(l.data) && !isPDFDelimiterOrSpace(l.data[l.pos]) {
		l.pos++
	}
	word := string(l.data[start:l.pos])
	if n, err := strconv.ParseInt(word, 10, 64); err == nil {
		return n, true
	}
	if isPDFReal(word) {
		if f, err := strconv.ParseFloat(word, 64); err == nil {
			return f, true
		}
	}
	return pdfKeyword(word), true
}

func isPDFReal(word string) bool {
	if word == "" {
		return false
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+') {
			return false
		}
	}
	return true
}

func (l *pdfLexer) name() pdfName {
	l.pos++ // '/'
	var b []byte
	for l.pos < len(l.data) && !isPDFDelimiterOrSpace(l.data[l.pos]) {
		c := l.data[l.pos]
		if c == '#' && l.pos+2 < len(l.data) {
			if v, err := strconv.ParseUint(string(l.data[l.pos+1:l.pos+3]), 16, 8); err == nil {
				b = append(b, byte(v))
				l.pos += 3
				continue
			}
		}
		b = append(b, c)
		l.pos++
	}
	return pdfName(b)
}

// stringEnd returns the offset just past the ")" that closes the literal string starting at pos, and -1
// when it is not closed. It allocates nothing and jumps between the three bytes that matter with
// IndexByte (each looked for again only once passed, so the scan stays linear), so an unterminated string
// costs only a fast scan.
func (l *pdfLexer) stringEnd(pos int) int {
	data := l.data
	next := func(c byte, from int) int {
		if from >= len(data) {
			return len(data)
		}
		if k := bytes.IndexByte(data[from:], c); k >= 0 {
			return from + k
		}
		return len(data)
	}
	open, closing, escape := next('(', pos), next(')', pos), next('\\', pos)
	depth := 0
	for {
		i := min(open, closing, escape)
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case '\\':
			i++ // the escaped byte, whatever it is
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
		if open < i {
			open = next('(', i)
		}
		if closing < i {
			closing = next(')', i)
		}
		if escape < i {
			escape = next('\\', i)
		}
	}
}

func (l *pdfLexer) literalString() (any, bool) {
	if end := l.stringEnd(l.pos); end < 0 {
		l.pos = len(l.data)
		return nil, false
	}
	l.pos++ // '('
	var out []byte
	depth := 1
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return pdfString(out), true
			}
		case '\\':
			if l.pos >= len(l.data) {
				return nil, false
			}
			e := l.data[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.pos < len(l.data) && l.data[l.pos] == '\n' {
					l.pos++
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for i := 0; i < 2 && l.pos < len(l.data) && l.data[l.pos] >= '0' && l.data[l.pos] <= '7'; i++ {
						v = v*8 + int(l.data[l.pos]-'0')
						l.pos++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		out = append(out, c)
	}
	return nil, false
}

func (l *pdfLexer) hexString() (any, bool) {
	l.pos++ // '<'
	var out []byte
	var pending int = -1
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		if c == '>' {
			if pending >= 0 {
				out = append(out, byte(pending<<4))
			}
			return pdfString(out), true
		}
		if isPDFSpace(c) {
			continue
		}
		v, err := strconv.ParseUint(string(c), 16, 8)
		if err != nil {
			return nil, false
		}
		if pending < 0 {
			pending = int(v)
		} else {
			out = append(out, byte(pending<<4|int(v)))
			pending = -1
		}
	}
	return nil, false
}

// value reads one PDF object: a number, reference, name, string, array, dictionary, boolean or null.
func (l *pdfLexer) value(depth int) (any, bool) {
	if depth > maxPDFDepth {
		return nil, false
	}
	tok, ok := l.token()
	if !ok {
		return nil, false
	}
	switch t := tok.(type) {
	case int64:
		if ref, ok := l.reference(t); ok {
			return ref, true
		}
		return t, true
	case pdfDelimiter:
		switch t {
		case "[":
			return l.array(depth)
		case "<<":
			return l.dict(depth)
		}
		return nil, false
	case pdfKeyword:
		switch t {
		case "true":
			return true, true
		case "false":
			return false, true
		case "null":
			return nil, true
		}
		return nil, false
	}
	return tok, true
}

// reference reads the "G R" after an object number, restoring the position when they are not there.
func (l *pdfLexer) reference(num int64) (pdfRef, bool) {
	save := l.pos
	gen, ok1 := l.token()
	r, ok2 := l.token()
	g, isInt := gen.(int64)
	if ok1 && ok2 && isInt && r == pdfKeyword("R") && num >= 0 && num <= 1<<31 && g >= 0 && g <= 1<<16 {
		return pdfRef{num: int(num), gen: int(g)}, true
	}
	l.pos = save
	return pdfRef{}, false
}

func (l *pdfLexer) array(depth int) (any, bool) {
	var out pdfArray
	for {
		l.skipSpace()
		if l.pos < len(l.data) && l.data[l.pos] == ']' {
			l.pos++
			return out, true
		}
		v, ok := l.value(depth + 1)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
}

func (l *pdfLexer) dict(depth int) (any, bool) {
	out := pdfDict{}
	for {
		tok, ok := l.token()
		if !ok {
			return nil, false
		}
		if tok == pdfDelimiter(">>") {
			return out, true
		}
		key, isName := tok.(pdfName)
		if !isName {
			return nil, false
		}
		v, ok := l.value(depth + 1)
		if !ok {
			return nil, false
		}
		out[key] = v
	}
}

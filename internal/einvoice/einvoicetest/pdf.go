package einvoicetest

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"fmt"
	"strings"
)

// EmbeddedFile is one embedded file of a hand-made test PDF.
type EmbeddedFile struct {
	Name       string
	Data       []byte
	Flate      bool   // compress with /FlateDecode
	FlateChain int    // compress this many times over, with /Filter [/FlateDecode …] naming each
	Untyped    bool   // leave out /Type /EmbeddedFile, so only the file specification names the stream
	Length     string // "direct" (default), "indirect" or "wrong"
	NoNameRef  bool   // no /EmbeddedFiles name tree entry and no /AF (only /Type finds the stream)
}

// PDF describes a small, deterministic PDF: one page of text and any number of embedded files. The
// layout follows the Factur-X conventions (name tree, /AF, /AFRelationship) without claiming PDF/A.
type PDF struct {
	Lines        []string
	Attachments  []EmbeddedFile
	ObjectStream bool   // store the file specifications in a PDF 1.5 object stream
	FacturXMP    bool   // add XMP metadata with the Factur-X extension schema
	XMP          string // add this XMP metadata instead (a ZUGFeRD 1.0 one, say)
}

// Build writes the PDF with a correct classic cross-reference table (objects in object streams are left
// out of it, which readers that rebuild the table tolerate; the carver does not use it).
func (p PDF) Build() []byte {
	type object struct {
		num  int
		body []byte
	}
	var objects []object
	next := 1
	alloc := func() int { n := next; next++; return n }
	catalog, pages, page, contents, font := alloc(), alloc(), alloc(), alloc(), alloc()

	var stream bytes.Buffer
	stream.WriteString("BT /F1 11 Tf 56 780 Td 14 TL\n")
	for _, line := range p.Lines {
		r := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
		fmt.Fprintf(&stream, "(%s) '\n", r.Replace(line))
	}
	stream.WriteString("ET\n")

	var names, af []string
	var specs []object
	// Bombs repeat one slice of zeros: it is compressed once.
	type slice struct {
		first *byte
		n     int
	}
	compressed := map[slice][]byte{}
	for _, a := range p.Attachments {
		spec, file := alloc(), alloc()
		dict := "<< "
		if !a.Untyped {
			dict += "/Type /EmbeddedFile "
		}
		dict += fmt.Sprintf("/Subtype /text#2Fxml /Params << /Size %d /ModDate (D:20261120000000Z) >> ", len(a.Data))
		data := a.Data
		if a.Flate {
			key := slice{n: len(a.Data)}
			if len(a.Data) > 0 {
				key.first = &a.Data[0]
			}
			if z, ok := compressed[key]; ok {
				data = z
			} else {
				var z bytes.Buffer
				zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
				zw.Write(a.Data)
				zw.Close()
				data = z.Bytes()
				compressed[key] = data
			}
			dict += "/Filter /FlateDecode "
		}
		if a.FlateChain > 0 {
			for range a.FlateChain {
				var z bytes.Buffer
				zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
				zw.Write(data)
				zw.Close()
				data = z.Bytes()
			}
			dict += "/Filter [" + strings.TrimSpace(strings.Repeat("/FlateDecode ", a.FlateChain)) + "] "
		}
		switch a.Length {
		case "indirect":
			lengthObj := alloc()
			dict += fmt.Sprintf("/Length %d 0 R >>", lengthObj)
			objects = append(objects, object{lengthObj, []byte(fmt.Sprint(len(data)))})
		case "wrong":
			dict += fmt.Sprintf("/Length %d >>", len(data)+7)
		default:
			dict += fmt.Sprintf("/Length %d >>", len(data))
		}
		body := append([]byte(dict+"\nstream\n"), data...)
		body = append(body, "\nendstream"...)
		objects = append(objects, object{file, body})
		specBody := fmt.Sprintf("<< /Type /Filespec /F (%s) /UF (%s) /Desc (Invoice data) /AFRelationship /Alternative /EF << /F %d 0 R /UF %d 0 R >> >>", a.Name, a.Name, file, file)
		specs = append(specs, object{spec, []byte(specBody)})
		if !a.NoNameRef {
			names = append(names, fmt.Sprintf("(%s) %d 0 R", a.Name, spec))
			af = append(af, fmt.Sprintf("%d 0 R", spec))
		}
	}
	if p.ObjectStream && len(specs) > 0 {
		objStm := alloc()
		var header, bodies bytes.Buffer
		for _, s := range specs {
			fmt.Fprintf(&header, "%d %d ", s.num, bodies.Len())
			bodies.Write(s.body)
			bodies.WriteString("\n")
		}
		var z bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
		zw.Write(header.Bytes())
		zw.Write(bodies.Bytes())
		zw.Close()
		body := fmt.Sprintf("<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>\nstream\n", len(specs), header.Len(), z.Len())
		objects = append(objects, object{objStm, append(append([]byte(body), z.Bytes()...), "\nendstream"...)})
	} else {
		objects = append(objects, specs...)
	}

	catalogBody := fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R", pages)
	if len(names) > 0 {
		catalogBody += fmt.Sprintf(" /Names << /EmbeddedFiles << /Names [%s] >> >> /AF [%s] /PageMode /UseAttachments", strings.Join(names, " "), strings.Join(af, " "))
	}
	if p.FacturXMP || p.XMP != "" {
		meta := alloc()
		catalogBody += fmt.Sprintf(" /Metadata %d 0 R", meta)
		xmp := facturXMP
		if p.XMP != "" {
			xmp = p.XMP
		}
		objects = append(objects, object{meta, []byte(fmt.Sprintf("<< /Type /Metadata /Subtype /XML /Length %d >>\nstream\n%s\nendstream", len(xmp), xmp))})
	}
	catalogBody += " >>"
	objects = append(objects,
		object{catalog, []byte(catalogBody)},
		object{pages, []byte(fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))},
		object{page, []byte(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> >> >>", pages, contents, font))},
		object{contents, []byte(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", stream.Len(), stream.String()))},
		object{font, []byte("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")},
	)

	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, next)
	for num := 1; num < next; num++ {
		for _, o := range objects {
			if o.num != num {
				continue
			}
			offsets[num] = out.Len()
			fmt.Fprintf(&out, "%d 0 obj\n", num)
			out.Write(o.body)
			out.WriteString("\nendobj\n")
		}
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", next)
	for num := 1; num < next; num++ {
		if offsets[num] == 0 {
			out.WriteString("0000000000 65535 f \n")
			continue
		}
		fmt.Fprintf(&out, "%010d 00000 n \n", offsets[num])
	}
	id := sha256.Sum256(out.Bytes())
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root %d 0 R /ID [<%x> <%x>] >>\nstartxref\n%d\n%%%%EOF\n", next, catalog, id[:16], id[:16], xref)
	return out.Bytes()
}

const facturXMP = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#">
   <fx:DocumentType>INVOICE</fx:DocumentType>
   <fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>
   <fx:Version>1.0</fx:Version>
   <fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`

// ZUGFeRD1XMP is the XMP metadata of a ZUGFeRD 1.0 PDF: the ZUGFeRD 1.0 extension schema, which names
// the embedded file ZUGFeRD-invoice.xml and the profile.
const ZUGFeRD1XMP = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:zf="urn:ferd:pdfa:CrossIndustryDocument:invoice:1p0#">
   <zf:DocumentType>INVOICE</zf:DocumentType>
   <zf:DocumentFileName>ZUGFeRD-invoice.xml</zf:DocumentFileName>
   <zf:Version>1.0</zf:Version>
   <zf:ConformanceLevel>COMFORT</zf:ConformanceLevel>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`

// QuadraticObjectStreamPDF builds a hostile PDF: an object stream whose header lists entries
// objects (all numbered 1, so none is ever stored) at offset 0, where an unterminated string runs for
// body bytes. A lexer that starts afresh for each entry scans body bytes entries times.
func QuadraticObjectStreamPDF(entries, body int) []byte {
	var plain bytes.Buffer
	plain.WriteString(strings.Repeat("1 0 ", entries))
	first := plain.Len()
	plain.WriteString("(")
	plain.WriteString(strings.Repeat("a", body))
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
	_, _ = zw.Write(plain.Bytes())
	_ = zw.Close()
	var pdf bytes.Buffer
	fmt.Fprintf(&pdf, "%%PDF-1.7\n5 0 obj\n<< /Type /ObjStm /N %d /First %d /Filter /FlateDecode /Length %d >>\nstream\n", entries, first, z.Len())
	pdf.Write(z.Bytes())
	pdf.WriteString("\nendstream\nendobj\ntrailer\n<< /Root 5 0 R >>\n%%EOF\n")
	return pdf.Bytes()
}

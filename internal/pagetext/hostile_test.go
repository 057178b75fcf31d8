package pagetext

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"codeberg.org/go-pdf/fpdf"

	"greatbook/internal/testkit"
)

// hugePNG is a grey PNG whose header says w×h pixels, with one tiny IDAT:
// what a decompression bomb looks like before anything decodes it.
func hugePNG(w, h uint32) []byte {
	chunk := func(buf *bytes.Buffer, kind string, data []byte) {
		binary.Write(buf, binary.BigEndian, uint32(len(data)))
		crc := crc32.NewIEEE()
		crc.Write([]byte(kind))
		crc.Write(data)
		buf.WriteString(kind)
		buf.Write(data)
		binary.Write(buf, binary.BigEndian, crc.Sum32())
	}
	var buf bytes.Buffer
	buf.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	chunk(&buf, "IHDR", append(ihdr, 8, 0, 0, 0, 0))
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(make([]byte, 1024))
	zw.Close()
	chunk(&buf, "IDAT", z.Bytes())
	chunk(&buf, "IEND", nil)
	return buf.Bytes()
}

// hugeJPEG is a JPEG whose frame header says w×h pixels.
func hugeJPEG(w, h uint16) []byte {
	sof := []byte{0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 1, 0, 72, 0, 72, 0, 0}
	sof = append(sof, 0xff, 0xc0, 0, 11, 8)
	sof = binary.BigEndian.AppendUint16(sof, h)
	sof = binary.BigEndian.AppendUint16(sof, w)
	return append(sof, 1, 1, 0x11, 0, 0xff, 0xd9)
}

// hugeTIFF is an uncompressed grey TIFF whose directory says w×h pixels.
func hugeTIFF(w, h uint32) []byte {
	type entry struct {
		tag, kind uint16
		value     uint32
	}
	entries := []entry{
		{256, 4, w}, {257, 4, h}, {258, 3, 8}, {259, 3, 1}, {262, 3, 1},
		{273, 4, 8}, {277, 3, 1}, {278, 4, h}, {279, 4, 1},
	}
	b := []byte("II*\x00")
	b = binary.LittleEndian.AppendUint32(b, 9) // the directory, after one pixel
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(entries)))
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint16(b, e.tag)
		b = binary.LittleEndian.AppendUint16(b, e.kind)
		b = binary.LittleEndian.AppendUint32(b, 1)
		b = binary.LittleEndian.AppendUint32(b, e.value)
	}
	return binary.LittleEndian.AppendUint32(b, 0)
}

func limitWhat(err error) string {
	var le *LimitError
	if errors.As(err, &le) {
		return le.What
	}
	return ""
}

// An image whose header says more pixels than MaxPixels is refused before
// any of it is decoded or any tool sees it.
func TestImageOverMaxPixelsIsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, mediaType string
		content         []byte
	}{
		{"png", "image/png", hugePNG(100_000, 100_000)},
		{"jpeg", "image/jpeg", hugeJPEG(65_000, 65_000)},
		{"tiff", "image/tiff", hugeTIFF(100_000, 100_000)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			_, err := Read(context.Background(), c.content, c.mediaType, Limits{})
			if limitWhat(err) != "pixels" {
				t.Fatalf("Read: %v, want the pixels limit", err)
			}
			_, err = RenderPage(context.Background(), c.content, c.mediaType, 1, 72, Limits{})
			if limitWhat(err) != "pixels" {
				t.Fatalf("RenderPage: %v, want the pixels limit", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("refusing took %s", d)
			}
		})
	}
}

// pdfOfSize is one A4-less page of w×h points with a few words.
func pdfOfSize(t *testing.T, w, h float64, text string) []byte {
	t.Helper()
	p := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: w, Ht: h}})
	p.SetFont("Helvetica", "", 16)
	p.AddPage()
	if text != "" {
		p.Text(40, 60, text)
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A page with a huge MediaBox is rendered at a resolution lowered to keep
// it within MaxPixels, for OCR and for a reviewer alike.
func TestHugePageIsRenderedWithinMaxPixels(t *testing.T) {
	t.Parallel()
	pdf := pdfOfSize(t, 14_400, 14_400, "") // 200 inches square, no text layer
	lim := Limits{MaxPixels: 1_000_000}
	img, err := RenderPage(context.Background(), pdf, "application/pdf", 1, 300, lim)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	if px := cfg.Width * cfg.Height; px > 1_000_000 || px < 800_000 {
		t.Fatalf("rendered %d×%d", cfg.Width, cfg.Height)
	}
	text, err := Read(context.Background(), pdf, "application/pdf", lim)
	if err != nil {
		t.Fatal(err)
	}
	if p := text.Pages[0]; p.Source != OCR || p.Width != 14_400 {
		t.Fatalf("page %+v", p)
	}
}

// manyPages writes a PDF of n A4 pages by hand (fpdf takes seconds for
// thousands), page i saying "This is page i" an inch from its top left.
func manyPages(n int) []byte { return handPDF(n, 0) }

// handPDF is manyPages with each page's /Rotate.
func handPDF(n, rotate int) []byte {
	var b bytes.Buffer
	var offsets []int
	object := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	object("<< /Type /Catalog /Pages 2 0 R >>")
	kids := make([]string, n)
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	object(fmt.Sprintf("<< /Type /Pages /Count %d /Kids [%s] >>", n, strings.Join(kids, " ")))
	object("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i := range n {
		object(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Rotate %d /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", rotate, 5+2*i))
		content := fmt.Sprintf("BT /F1 12 Tf 72 770 Td (This is page %d) Tj ET", i+1)
		object(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// A PDF of 5,000 pages is read to MaxPages, quickly, and says how many it
// has.
func TestLongPDFIsReadToMaxPages(t *testing.T) {
	t.Parallel()
	pdf := manyPages(5000)
	start := time.Now()
	text, err := Read(context.Background(), pdf, "application/pdf", Limits{MaxPages: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(text.Pages) != 3 || text.PagesInDocument != 5000 || !text.Truncated() {
		t.Fatalf("%d pages of %d", len(text.Pages), text.PagesInDocument)
	}
	if got := wordTexts(text.Pages[2]); got != "This is page 3" {
		t.Errorf("page 3: %q", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("reading took %s", d)
	}
	if _, err := RenderPage(context.Background(), pdf, "application/pdf", 4, 72, Limits{MaxPages: 3}); limitWhat(err) != "pages" {
		t.Errorf("RenderPage past MaxPages: %v", err)
	}
}

// A malformed or encrypted PDF is unreadable, which is not a limit.
func TestUnreadablePDF(t *testing.T) {
	t.Parallel()
	encrypted := fpdf.New("P", "mm", "A4", "")
	encrypted.SetProtection(fpdf.CnProtectPrint, "user secret", "owner secret")
	encrypted.SetFont("Helvetica", "", 12)
	encrypted.AddPage()
	encrypted.Text(20, 30, "Nobody reads this")
	var buf bytes.Buffer
	if err := encrypted.Output(&buf); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		content []byte
		reason  string
	}{
		{"malformed", []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage\n%%EOF\n"), ""},
		{"encrypted", buf.Bytes(), "encrypted"},
		{"not a pdf", []byte("hello"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(context.Background(), c.content, "application/pdf", Limits{})
			var ue *UnreadableError
			if !errors.As(err, &ue) || limitWhat(err) != "" {
				t.Fatalf("Read: %v, want an UnreadableError", err)
			}
			if !strings.Contains(ue.Reason, c.reason) {
				t.Errorf("reason %q, want %q in it", ue.Reason, c.reason)
			}
		})
	}
}

// A tool that goes past the memory cap is a memory LimitError.
func TestToolOverMaxMemory(t *testing.T) {
	t.Parallel()
	pdf := pdfWith(t, invoiceLines)
	// 16 MiB of address space does not even hold the tools' libraries.
	lim := Limits{MaxMemory: 16 << 20}
	if _, err := Read(context.Background(), pdf, "application/pdf", lim); limitWhat(err) != "memory" {
		t.Errorf("PDF: %v, want the memory limit", err)
	}
	if _, err := Read(context.Background(), hugePNG(2000, 2000), "image/png", lim); limitWhat(err) != "memory" {
		t.Errorf("image: %v, want the memory limit", err)
	}
}

// fakeTool stands a shell script in for one of the tools while the test
// runs; such tests are not parallel.
func fakeTool(t *testing.T, name, script string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lookTool = exec.LookPath })
	lookTool = func(n string) (string, error) {
		if n == name {
			return path, nil
		}
		return exec.LookPath(n)
	}
}

// liveInGroup counts the processes of process group pgid that are not yet
// zombies.
func liveInGroup(pgid int) (int, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			n++
		}
	}
	return n, nil
}

// A document past its time limit is a time LimitError, and no process of
// the tool's group, child or grandchild, outlives the read.
func TestTimeLimitKillsTheToolsGroup(t *testing.T) {
	fakeTool(t, "pdfinfo", "sleep 600 &\nsleep 600\n")
	var started []int
	t.Cleanup(func() { toolStarted = func(int) {} })
	toolStarted = func(pid int) { started = append(started, pid) }

	start := time.Now()
	_, err := Read(context.Background(), pdfWith(t, invoiceLines), "application/pdf", Limits{Timeout: time.Second})
	if limitWhat(err) != "time" {
		t.Fatalf("Read: %v, want the time limit", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("Read returned after %s", d)
	}
	if len(started) != 1 {
		t.Fatalf("%d tools started", len(started))
	}
	// The leader is reaped by Read; its grandchild dies of the same SIGKILL
	// a moment later.
	if err := testkit.Poll(5*time.Second, func() (bool, error) {
		n, err := liveInGroup(started[0])
		return n == 0, err
	}); err != nil {
		t.Fatalf("the tool's process group lives on: %v", err)
	}
}

// A tool past its CPU seconds is a time LimitError, not taken for one that
// ran out of memory.
func TestToolOverCPUSeconds(t *testing.T) {
	fakeTool(t, "pdfinfo", "while :; do :; done\n")
	budget := cpuSeconds
	t.Cleanup(func() { cpuSeconds = budget })
	cpuSeconds = func(context.Context) int64 { return 1 }
	_, err := Read(context.Background(), pdfWith(t, invoiceLines), "application/pdf", Limits{Timeout: time.Minute})
	var le *LimitError
	if !errors.As(err, &le) || le.What != "time" || !strings.Contains(le.Limit, "CPU seconds") {
		t.Fatalf("Read: %v, want the time limit of CPU seconds", err)
	}
}

// A caller's cancellation is the caller's error, not the document's.
func TestCancelledReadIsNotALimit(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Read(ctx, pdfWith(t, invoiceLines), "application/pdf", Limits{})
	if !errors.Is(err, context.Canceled) || limitWhat(err) != "" {
		t.Fatalf("Read: %v, want context.Canceled", err)
	}
}

// A missing tool is the operator's fault: ErrToolMissing.
func TestMissingTool(t *testing.T) {
	t.Cleanup(func() { lookTool = exec.LookPath })
	lookTool = func(n string) (string, error) {
		if n == "tesseract" {
			return "", exec.ErrNotFound
		}
		return exec.LookPath(n)
	}
	_, err := Read(context.Background(), hugePNG(2000, 2000), "image/png", Limits{})
	if !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), "tesseract") {
		t.Fatalf("Read: %v, want ErrToolMissing naming tesseract", err)
	}
}

// A tesseract model that does not load is missing too, though tesseract
// reads on without it.
func TestMissingLanguageModel(t *testing.T) {
	fakeTool(t, "tesseract", `echo "Failed loading language 'nld'" >&2; printf 'level\n'`+"\n")
	_, err := Read(context.Background(), hugePNG(2000, 2000), "image/png", Limits{})
	if !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), "nld") {
		t.Fatalf("Read: %v, want ErrToolMissing naming nld", err)
	}
}

// An image that passes the header check but does not decode is
// unreadable.
func TestUndecodableImage(t *testing.T) {
	t.Parallel()
	_, err := Read(context.Background(), hugePNG(2000, 2000), "image/png", Limits{})
	var ue *UnreadableError
	if !errors.As(err, &ue) {
		t.Fatalf("Read: %v, want an UnreadableError", err)
	}
}

// Each read works in its own temporary directory and leaves nothing behind.
func TestReadLeavesNoTemporaryFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	pdf := pdfWith(t, invoiceLines)
	if _, err := Read(context.Background(), pdf, "application/pdf", Limits{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(context.Background(), []byte("%PDF-1.4 broken"), "application/pdf", Limits{}); err == nil {
		t.Fatal("a broken PDF was read")
	}
	left, err := os.ReadDir(tmp)
	if err != nil || len(left) != 0 {
		t.Fatalf("left behind: %v %v", left, err)
	}
}

// A tool's output is read through a cap: a tool that writes without end is
// stopped at it.
func TestToolOutputIsCapped(t *testing.T) {
	fakeTool(t, "pdftotext", "exec yes '<word xMin=\"1\" yMin=\"1\" xMax=\"2\" yMax=\"2\">w</word>'\n")
	_, err := Read(context.Background(), pdfWith(t, invoiceLines), "application/pdf", Limits{MaxPages: 1})
	if limitWhat(err) != "words" {
		t.Fatalf("Read: %v, want the words limit", err)
	}
}

// Each tool runs with its address space and CPU seconds capped, and
// tesseract on one thread.
func TestToolsRunUnderTheirCaps(t *testing.T) {
	fakeTool(t, "tesseract", `printf 'level\n5\t1\t1\t1\t1\t1\t0\t0\t10\t10\t90\tas=%s,cpu=%s:%s,threads=%s\n' "$(ulimit -v)" "$(ulimit -St)" "$(ulimit -Ht)" "$OMP_THREAD_LIMIT"`+"\n")
	text, err := Read(context.Background(), hugePNG(2000, 2000), "image/png", Limits{MaxMemory: 512 << 20, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := wordTexts(text.Pages[0]); got != "as=524288,cpu=31:32,threads=1" {
		t.Fatalf("the tool ran with %q", got)
	}
}

// A PDF encrypted with an owner password only (no copying, no printing)
// opens without one, and its text is read.
func TestOwnerRestrictedPDFIsRead(t *testing.T) {
	t.Parallel()
	p := fpdf.New("P", "mm", "A4", "")
	p.SetProtection(0, "", "owner secret")
	p.SetFont("Helvetica", "", 12)
	p.AddPage()
	p.Text(20, 30, "Invoice number INV-2024-001")
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		t.Fatal(err)
	}
	text, err := Read(context.Background(), buf.Bytes(), "application/pdf", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := wordTexts(text.Pages[0]); got != "Invoice number INV-2024-001" {
		t.Fatalf("words %q", got)
	}
}

// A page turned by its /Rotate has its words' boxes on the page as shown,
// as pdftoppm renders it for a reviewer.
func TestTurnedPDFPage(t *testing.T) {
	t.Parallel()
	// "This", the line's first word, 12 pt an inch from the top left of the
	// page unturned.
	upright := Box{X0: 72.0 / 595, Y0: 0.075, X1: 0.159, Y1: 0.0885}
	for _, c := range []struct {
		rotate        int
		width, height float64
	}{{0, 595, 842}, {90, 842, 595}, {180, 595, 842}} {
		t.Run(strconv.Itoa(c.rotate), func(t *testing.T) {
			t.Parallel()
			text, err := Read(context.Background(), handPDF(1, c.rotate), "application/pdf", Limits{})
			if err != nil {
				t.Fatal(err)
			}
			page := text.Pages[0]
			if page.Width != c.width || page.Height != c.height || page.Source != TextLayer {
				t.Fatalf("page %+v", page)
			}
			want := turnForward(upright, c.rotate/90)
			if b := wordBox(t, page, "This"); !near(b, want, 0.005) {
				t.Errorf("This at %+v, want about %+v", b, want)
			}
		})
	}
}

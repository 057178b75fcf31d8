package pagetext

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ocrLanguages are the tesseract models every page is read with: the
// languages of the suppliers' invoices.
const ocrLanguages = "eng+deu+fra+nld"

// minTextWords is the fewest words a PDF page's text layer must have to be
// trusted; a page with fewer (a scan, or a scan with a stamp's worth of
// text) is OCRed.
const minTextWords = 3

// ocrOutputCap bounds tesseract's TSV for one page: about 100 bytes a word.
const ocrOutputCap = MaxWordsPerPage*100 + 1<<16

// capDPI lowers dpi so that a w×h-point page rendered at it stays within
// MaxPixels, rounding up as pdftoppm does.
func (r *reader) capDPI(size pdfPage, dpi int) (int, error) {
	pixels := func(d int) float64 {
		return math.Ceil(size.width*float64(d)/72) * math.Ceil(size.height*float64(d)/72)
	}
	if size.width <= 0 || size.height <= 0 {
		size = pdfPage{width: 612, height: 792}
	}
	if pixels(dpi) > float64(r.lim.MaxPixels) {
		dpi = int(72 * math.Sqrt(float64(r.lim.MaxPixels)/(size.width*size.height)))
		for dpi > 0 && pixels(dpi) > float64(r.lim.MaxPixels) {
			dpi--
		}
	}
	if dpi < 1 {
		return 0, r.pixelError()
	}
	return dpi, nil
}

// rasterise renders PDF page n as a PNG at dpi (lowered to stay within
// MaxPixels) and returns it with the dpi used.
func (r *reader) rasterise(n int, size pdfPage, dpi int, gray bool) ([]byte, int, error) {
	dpi, err := r.capDPI(size, dpi)
	if err != nil {
		return nil, 0, err
	}
	args := []string{"-r", strconv.Itoa(dpi), "-f", strconv.Itoa(n), "-l", strconv.Itoa(n), "-png", "-cropbox"}
	if gray {
		args = append(args, "-gray")
	}
	out, err := r.run("pdftoppm", append(args, "in.pdf"), int(r.lim.MaxPixels*4+1<<20), "pixels")
	if err != nil {
		return nil, 0, unreadable(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(out))
	if err != nil {
		return nil, 0, &UnreadableError{Reason: fmt.Sprintf("page %d did not render", n)}
	}
	if int64(cfg.Width)*int64(cfg.Height) > r.lim.MaxPixels {
		return nil, 0, r.pixelError()
	}
	return out, dpi, nil
}

// blank reports whether a PNG from pdftoppm (grey, or RGB even when asked
// for grey) has next to no dark pixels: a blank page, which OCR would spend
// seconds on to find nothing.
func blank(img []byte) bool {
	decoded, err := png.Decode(bytes.NewReader(img))
	if err != nil {
		return false
	}
	dark := 0
	switch m := decoded.(type) {
	case *image.Gray:
		for _, v := range m.Pix {
			if v < 128 {
				dark++
			}
		}
	case *image.RGBA:
		for i := 0; i+3 < len(m.Pix); i += 4 {
			if int(m.Pix[i])+int(m.Pix[i+1])+int(m.Pix[i+2]) < 3*128 {
				dark++
			}
		}
	default:
		return false
	}
	return dark < 50
}

// ocr reads the words of the w×h image in file (at dpi) as words of page.
// A read that looks poor is tried again turned as tesseract's orientation
// detection says, and the better read is kept, its boxes turned back.
func (r *reader) ocr(file string, dpi, w, h, page int) ([]Word, error) {
	// tesseract takes a resolution under 70 for a mistake; a page that large
	// shrunk to MaxPixels reads no better for the truth.
	dpi = max(dpi, 70)
	words, err := r.tesseract(file, dpi, w, h, page)
	if err != nil || !poorRead(words) {
		return words, err
	}
	// tesseract's orientation detection fails on a page with too few
	// letters; that leaves the first read.
	turns, err := r.orientation(file, dpi)
	var failed *toolError
	if err != nil && !errors.As(err, &failed) {
		return nil, err
	}
	if err != nil || turns == 0 {
		return words, nil
	}
	turned, err := turnImage(filepath.Join(r.dir, file), turns)
	if err != nil {
		return words, nil
	}
	name := "turned-" + strings.TrimSuffix(file, filepath.Ext(file)) + ".png"
	if err := os.WriteFile(filepath.Join(r.dir, name), turned, 0o600); err != nil {
		return nil, fmt.Errorf("pagetext: %w", err)
	}
	tw, th := w, h
	if turns%2 == 1 {
		tw, th = h, w
	}
	again, err := r.tesseract(name, dpi, tw, th, page)
	if err != nil {
		return nil, err
	}
	if score(again) <= score(words) {
		return words, nil
	}
	for i := range again {
		again[i].Box = turnBack(again[i].Box, turns)
	}
	return again, nil
}

// poorRead reports whether an OCR read is too thin or unsure to trust
// without trying the page turned.
func poorRead(words []Word) bool {
	return len(words) < 2*minTextWords || score(words)/float64(len(words)) < 0.6
}

func score(words []Word) float64 {
	var s float64
	for _, w := range words {
		s += w.Conf
	}
	return s
}

func (r *reader) tesseract(file string, dpi, w, h, page int) ([]Word, error) {
	out, err := r.run("tesseract", []string{file, "stdout", "-l", ocrLanguages, "--psm", "3", "--dpi", strconv.Itoa(dpi), "tsv"}, ocrOutputCap, "words")
	if err != nil {
		return nil, unreadable(err) // an image leptonica cannot decode
	}
	return parseTSV(out, w, h, page)
}

// parseTSV reads tesseract's TSV: the rows of level 5 are words, in reading
// order, with a box in pixels and a confidence of 0..100 (-1 for rows that
// are not words). A word's text is cleaned as the text layer's is: control
// characters and invalid UTF-8 become spaces, which PostgreSQL's jsonb would
// refuse (NUL) or garble.
func parseTSV(tsv []byte, w, h, page int) ([]Word, error) {
	words := []Word{}
	sc := bufio.NewScanner(bytes.NewReader(tsv))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 12 || f[0] != "5" {
			continue
		}
		conf, text := number(f[10]), strings.TrimSpace(string(xmlSafe([]byte(f[11]))))
		if conf < 0 || text == "" {
			continue
		}
		var n [4]float64
		for i := range n {
			n[i] = number(f[6+i])
		}
		if len(words) == MaxWordsPerPage {
			return nil, &LimitError{What: "words", Limit: fmt.Sprintf("%d words on page %d", MaxWordsPerPage, page)}
		}
		words = append(words, Word{
			Text: text,
			Page: page,
			Box:  normalise(n[0], n[1], n[0]+n[2], n[1]+n[3], float64(w), float64(h)),
			Conf: min(conf/100, 1),
		})
	}
	return words, sc.Err()
}

// orientation asks tesseract's orientation detection how many quarter turns
// clockwise make the image in file upright. A page with too little text to
// tell says 0.
func (r *reader) orientation(file string, dpi int) (int, error) {
	out, err := r.run("tesseract", []string{file, "stdout", "--psm", "0", "--dpi", strconv.Itoa(dpi)}, 1<<16, "words")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(out)) {
		if v, ok := strings.CutPrefix(line, "Rotate:"); ok {
			deg, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || deg%90 != 0 {
				return 0, nil
			}
			return (deg / 90) % 4, nil
		}
	}
	return 0, nil
}

// turnImage decodes the image in path (its pixels already checked) and
// returns it in grey, turned clockwise by quarter turns, as a PNG.
func turnImage(path string, turns int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, _, err := image.Decode(f)
	if err != nil {
		return nil, err
	}
	b := src.Bounds()
	gray := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(gray, gray.Bounds(), src, b.Min, draw.Src)
	w, h := b.Dx(), b.Dy()
	var out *image.Gray
	if turns%2 == 1 {
		out = image.NewGray(image.Rect(0, 0, h, w))
	} else {
		out = image.NewGray(image.Rect(0, 0, w, h))
	}
	for y := range h {
		row := gray.Pix[y*gray.Stride : y*gray.Stride+w]
		for x, v := range row {
			var tx, ty int
			switch turns {
			case 1:
				tx, ty = h-1-y, x
			case 2:
				tx, ty = w-1-x, h-1-y
			case 3:
				tx, ty = y, w-1-x
			}
			out.Pix[ty*out.Stride+tx] = v
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// turnBack maps a box on an image turned clockwise by quarter turns back
// onto the image as it was.
func turnBack(b Box, turns int) Box {
	switch turns {
	case 1:
		return Box{X0: b.Y0, Y0: 1 - b.X1, X1: b.Y1, Y1: 1 - b.X0}
	case 2:
		return Box{X0: 1 - b.X1, Y0: 1 - b.Y1, X1: 1 - b.X0, Y1: 1 - b.Y0}
	case 3:
		return Box{X0: 1 - b.Y1, Y0: b.X0, X1: 1 - b.Y0, Y1: b.X1}
	}
	return b
}

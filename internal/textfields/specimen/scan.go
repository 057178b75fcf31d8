package specimen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"

	"codeberg.org/go-pdf/fpdf"
)

// Scan says how Rasterise makes a "scan" of a PDF.
type Scan struct {
	DPI    int     // resolution; default 300
	Pages  int     // pages rasterised, from the first; 0 means all
	Rotate float64 // degrees, clockwise; keep within ±1
	Noise  float64 // fraction of pixels flipped to black or white (0.002 is mild)
	Seed   int64   // the noise's seed
}

// Rasterise returns a picture of pdf as a scanner would give it: a grey
// PNG when one page is rasterised, else an image-only PDF with one picture
// per page (no text layer, so a reader must OCR it). The same input gives
// the same bytes.
func Rasterise(ctx context.Context, pdf []byte, sc Scan) ([]byte, error) {
	if sc.DPI == 0 {
		sc.DPI = 300
	}
	dir, err := os.MkdirTemp("", "specimen-scan-")
	if err != nil {
		return nil, fmt.Errorf("specimen: rasterise: %w", err)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		return nil, fmt.Errorf("specimen: rasterise: %w", err)
	}
	args := []string{"-gray", "-png", "-r", fmt.Sprint(sc.DPI)}
	if sc.Pages > 0 {
		args = append(args, "-l", fmt.Sprint(sc.Pages))
	}
	if out, err := exec.CommandContext(ctx, "pdftoppm", append(args, in, filepath.Join(dir, "page"))...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("specimen: pdftoppm: %w: %s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "page-*.png"))
	sort.Strings(files) // pdftoppm pads the numbers to one width
	if len(files) == 0 {
		return nil, errors.New("specimen: pdftoppm wrote no page")
	}
	r := rand.New(rand.NewSource(sc.Seed))
	var pages [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("specimen: rasterise: %w", err)
		}
		if sc.Rotate != 0 || sc.Noise != 0 {
			if b, err = degrade(b, sc.Rotate, sc.Noise, r); err != nil {
				return nil, err
			}
		}
		pages = append(pages, b)
	}
	if len(pages) == 1 {
		return pages[0], nil
	}
	return imagePDF(pages)
}

// degrade turns and speckles a page picture as a cheap scanner would.
func degrade(pngBytes []byte, degrees, noise float64, r *rand.Rand) ([]byte, error) {
	src, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		return nil, fmt.Errorf("specimen: decode page: %w", err)
	}
	b := src.Bounds()
	dst := image.NewGray(b)
	sin, cos := math.Sincos(degrees * math.Pi / 180)
	cx, cy := float64(b.Dx())/2, float64(b.Dy())/2
	gray, _ := src.(*image.Gray)
	if gray == nil {
		gray = image.NewGray(b)
		for y := 0; y < b.Dy(); y++ {
			for x := 0; x < b.Dx(); x++ {
				gray.Pix[y*gray.Stride+x] = color.GrayModel.Convert(src.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
			}
		}
	}
	w, h := b.Dx(), b.Dy()
	for y := 0; y < h; y++ {
		// The source pixel each one shows: the rotation about the centre,
		// inverted, which moves by (cos, -sin) from one pixel to the next.
		dy := float64(y) - cy
		fx, fy := -cos*cx+sin*dy+cx+0.5, sin*cx+cos*dy+cy+0.5
		row := dst.Pix[y*dst.Stride : y*dst.Stride+w]
		for x := range row {
			sx, sy := int(math.Floor(fx)), int(math.Floor(fy))
			v := uint8(255)
			if sx >= 0 && sy >= 0 && sx < w && sy < h {
				v = gray.Pix[sy*gray.Stride+sx]
			}
			if noise > 0 && r.Float64() < noise {
				v = uint8(255 * r.Intn(2))
			}
			row[x] = v
			fx, fy = fx+cos, fy-sin
		}
	}
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&out, dst); err != nil {
		return nil, fmt.Errorf("specimen: encode page: %w", err)
	}
	return out.Bytes(), nil
}

// imagePDF puts one page picture on each page of an A4 PDF, the size of
// the pages Render draws and of the Factur-X sample's. (fpdf's pages of
// another size than the document's come out with their size in the wrong
// unit.)
func imagePDF(pages [][]byte) ([]byte, error) {
	doc := fpdf.New("P", "mm", "A4", "")
	doc.SetCreationDate(epoch)
	doc.SetModificationDate(epoch)
	doc.SetCatalogSort(true)
	doc.SetAutoPageBreak(false, 0)
	w, h := doc.GetPageSize()
	for i, p := range pages {
		name := fmt.Sprintf("page%d", i+1)
		doc.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(p))
		if doc.Err() {
			return nil, fmt.Errorf("specimen: image PDF: %w", doc.Error())
		}
		doc.AddPage()
		doc.ImageOptions(name, 0, 0, w, h, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	}
	var buf bytes.Buffer
	if err := doc.Output(&buf); err != nil {
		return nil, fmt.Errorf("specimen: image PDF: %w", err)
	}
	return buf.Bytes(), nil
}

// StripXML returns pdf's visible pages without what a Factur-X or ZUGFeRD
// PDF embeds: the pages redrawn by poppler's pdftocairo, which keeps the
// text layer (fonts and their Unicode maps) and writes no attachment,
// annotation or XMP metadata.
func StripXML(ctx context.Context, pdf []byte) ([]byte, error) {
	dir, err := os.MkdirTemp("", "specimen-strip-")
	if err != nil {
		return nil, fmt.Errorf("specimen: strip: %w", err)
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "out.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		return nil, fmt.Errorf("specimen: strip: %w", err)
	}
	if msg, err := exec.CommandContext(ctx, "pdftocairo", "-pdf", in, out).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("specimen: pdftocairo: %w: %s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("specimen: strip: %w", err)
	}
	if bytes.Contains(b, []byte("/EmbeddedFile")) || bytes.Contains(b, []byte("/Filespec")) {
		return nil, errors.New("specimen: strip: the redrawn PDF still embeds a file")
	}
	return b, nil
}

// facturXSample is the Factur-X (EN 16931) sample the reading is measured
// on, from the module's root.
const facturXSample = "internal/einvoice/testdata/samples/mustang-EN16931_Einfach.pdf"

// FacturXSample returns the Factur-X sample PDF, found from the working
// directory up to the module's root (a test's package directory, or the
// root a command runs in).
func FacturXSample() ([]byte, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("specimen: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			b, err := os.ReadFile(filepath.Join(dir, facturXSample))
			if err != nil {
				return nil, fmt.Errorf("specimen: the Factur-X sample: %w", err)
			}
			return b, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, errors.New("specimen: the Factur-X sample: no go.mod above the working directory")
		}
		dir = parent
	}
}

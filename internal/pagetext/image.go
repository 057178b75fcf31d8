package pagetext

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/tiff"
)

// defaultImageDPI is the resolution assumed of an image that states none,
// or states one no scan of an invoice has: a scanner's usual setting.
const defaultImageDPI = 300

// imageInfo is what is known of an image before any of it is decoded.
type imageInfo struct {
	format        string // "png", "jpeg" or "tiff"
	width, height int
	dpi           int
	stated        bool // dpi is the image's own, not assumed
}

// checkImage reads only an image's header: its format, its size, which must
// be within MaxPixels, and its stated resolution.
func (r *reader) checkImage(content []byte) (imageInfo, error) {
	var cfg image.Config
	var err error
	info := imageInfo{}
	switch {
	case bytes.HasPrefix(content, []byte("\x89PNG\r\n\x1a\n")):
		info.format = "png"
		cfg, err = png.DecodeConfig(bytes.NewReader(content))
	case bytes.HasPrefix(content, []byte("\xff\xd8")):
		info.format = "jpeg"
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(content))
	case bytes.HasPrefix(content, []byte("II*\x00")) || bytes.HasPrefix(content, []byte("MM\x00*")):
		info.format = "tiff"
		cfg, err = tiff.DecodeConfig(bytes.NewReader(content))
	default:
		return info, &UnreadableError{Reason: "not a PNG, JPEG or TIFF image"}
	}
	if err != nil {
		return info, &UnreadableError{Reason: "the image's header: " + err.Error()}
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return info, &UnreadableError{Reason: "the image is empty"}
	}
	if int64(cfg.Width)*int64(cfg.Height) > r.lim.MaxPixels {
		return info, r.pixelError()
	}
	info.width, info.height = cfg.Width, cfg.Height
	info.dpi = statedDPI(content, info.format)
	// A resolution under a fax's, or one that makes the image larger than
	// A3 paper (a camera's usual 72), says nothing about the paper.
	info.stated = info.dpi >= 70 && info.dpi <= 1200 && min(info.width, info.height) <= 12*info.dpi
	if !info.stated {
		info.dpi = defaultImageDPI
	}
	return info, nil
}

// upscaled returns an image whose size has been checked twice as wide and
// high, in grey, as a PNG: tesseract misses most words whose letters are
// under about ten pixels high, as a 9 pt line at 72 dpi is, and reads them
// all at twice the size.
func upscaled(content []byte) ([]byte, error) {
	src, _, err := image.Decode(bytes.NewReader(content))
	if err != nil {
		return nil, &UnreadableError{Reason: "the image: " + err.Error()}
	}
	b := src.Bounds()
	dst := image.NewGray(image.Rect(0, 0, 2*b.Dx(), 2*b.Dy()))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), src, b, xdraw.Src, nil)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, dst); err != nil {
		return nil, fmt.Errorf("pagetext: %w", err)
	}
	return buf.Bytes(), nil
}

func (r *reader) pixelError() error {
	return &LimitError{What: "pixels", Limit: fmt.Sprintf("%d pixels a page", r.lim.MaxPixels)}
}

// statedDPI is the horizontal resolution an image's header states, in dots
// per inch, or 0: PNG's pHYs chunk, JPEG's JFIF segment, TIFF's
// XResolution.
func statedDPI(b []byte, format string) int {
	switch format {
	case "png":
		for p := 8; p+8 <= len(b); {
			n := int(binary.BigEndian.Uint32(b[p:]))
			kind := string(b[p+4 : p+8])
			if kind == "IDAT" || n < 0 || p+8+n > len(b) {
				return 0
			}
			if kind == "pHYs" && n == 9 && b[p+16] == 1 { // unit 1: per metre
				return int(float64(binary.BigEndian.Uint32(b[p+8:]))*0.0254 + 0.5)
			}
			p += 12 + n
		}
	case "jpeg":
		for p := 2; p+4 <= len(b) && b[p] == 0xff; {
			marker, n := b[p+1], int(binary.BigEndian.Uint16(b[p+2:]))
			if marker == 0xda || n < 2 || p+2+n > len(b) {
				return 0
			}
			seg := b[p+4 : p+2+n]
			if marker == 0xe0 && len(seg) >= 12 && string(seg[:5]) == "JFIF\x00" {
				density := int(binary.BigEndian.Uint16(seg[8:]))
				switch seg[7] {
				case 1:
					return density
				case 2:
					return int(float64(density)*2.54 + 0.5)
				}
				return 0
			}
			p += 2 + n
		}
	case "tiff":
		return tiffDPI(b)
	}
	return 0
}

// tiffDPI reads XResolution and ResolutionUnit from a TIFF's first
// directory.
func tiffDPI(b []byte) int {
	if len(b) < 8 {
		return 0
	}
	var order binary.ByteOrder = binary.LittleEndian
	if b[0] == 'M' {
		order = binary.BigEndian
	}
	ifd := int(order.Uint32(b[4:]))
	if ifd < 8 || ifd+2 > len(b) {
		return 0
	}
	var res float64
	perCM := false
	for i, n := 0, int(order.Uint16(b[ifd:])); i < n; i++ {
		e := ifd + 2 + 12*i
		if e+12 > len(b) {
			break
		}
		switch order.Uint16(b[e:]) {
		case 282: // XResolution, a RATIONAL stored at an offset
			off := int(order.Uint32(b[e+8:]))
			if off > 0 && off+8 <= len(b) {
				if den := order.Uint32(b[off+4:]); den != 0 {
					res = float64(order.Uint32(b[off:])) / float64(den)
				}
			}
		case 296: // ResolutionUnit: 2 inch (the default), 3 centimetre
			perCM = order.Uint16(b[e+8:]) == 3
		}
	}
	if perCM {
		res *= 2.54
	}
	return int(res + 0.5)
}

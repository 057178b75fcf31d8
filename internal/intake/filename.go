package intake

import (
	"path"
	"strings"
	"unicode"

	"greatbook/internal/storable"
)

// MaxFilenameBytes caps a stored filename (the common file-system limit):
// a longer name keeps its extension and loses the middle.
const MaxFilenameBytes = 255

// maxExtensionBytes bounds what counts as an extension worth keeping when
// a name is shortened.
const maxExtensionBytes = 16

// CleanFilename is the one definition of a filename the product stores and
// shows: valid UTF-8 (bad bytes become U+FFFD), no control or
// bidirectional-override characters (each becomes '_'), no directories
// (only what follows the last '/' or '\'), no surrounding spaces, and at
// most MaxFilenameBytes bytes with the extension kept. It may return ""
// (the product then names the document by its id). The stores apply it to
// every name they keep (the guarantee); the upload page applies it to the
// names it shows, refused files' too, and Content-Disposition to names
// stored before it existed. It is idempotent.
func CleanFilename(name string) string {
	name = strings.ToValidUTF8(name, "\uFFFD")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || isBidiControl(r) {
			return '_'
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if name == "." || name == ".." {
		return ""
	}
	if len(name) <= MaxFilenameBytes {
		return name
	}
	ext := path.Ext(name)
	if len(ext) > maxExtensionBytes {
		ext = ""
	}
	// name is valid UTF-8 without NUL by now: Clean only cuts it, at a
	// character boundary.
	return strings.TrimSpace(storable.Clean(name[:len(name)-len(ext)], MaxFilenameBytes-len(ext)) + ext)
}

// isBidiControl reports the invisible marks that reorder text, with which
// "invoice\u202Efdp.exe" shows as "invoiceexe.pdf".
func isBidiControl(r rune) bool {
	return r == '\u200E' || r == '\u200F' || r >= '\u202A' && r <= '\u202E' || r >= '\u2066' && r <= '\u2069'
}

package en16931

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func addExampleSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/examples/*.xml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzCheckUBL reads any bytes as UBL and judges them: never a panic, whatever the document.
func FuzzCheckUBL(f *testing.F) {
	addExampleSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if inv, err := FromUBL(data); err == nil {
			Check(inv)
		}
	})
}

// FuzzCheckCII reads any bytes as CII and judges them: never a panic, whatever the document.
func FuzzCheckCII(f *testing.F) {
	addExampleSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if inv, err := FromCII(data); err == nil {
			Check(inv)
		}
	})
}

// TestReadingLimits proves a document nested deeper than MaxDepth or holding more than MaxElements elements is
// refused with ErrTooLarge before any rule runs, and that one within the limits is read.
func TestReadingLimits(t *testing.T) {
	deep := strings.Repeat("<a>", MaxDepth+1) + strings.Repeat("</a>", MaxDepth+1)
	if _, err := FromUBL([]byte("<Invoice>" + deep + "</Invoice>")); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("nesting beyond MaxDepth: got %v, want ErrTooLarge", err)
	}
	var wide bytes.Buffer
	wide.WriteString("<Invoice>")
	for i := 0; i < MaxElements; i++ {
		wide.WriteString("<a/>")
	}
	wide.WriteString("</Invoice>")
	if _, err := FromUBL(wide.Bytes()); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("more than MaxElements elements: got %v, want ErrTooLarge", err)
	}
	within := "<Invoice>" + strings.Repeat("<a>", MaxDepth-2) + strings.Repeat("</a>", MaxDepth-2) + "</Invoice>"
	if _, err := FromUBL([]byte(within)); err != nil {
		t.Fatalf("within the limits: %v", err)
	}
}

// TestCheckWithoutDocumentIsSilent proves Check of nothing and of an empty model does not panic.
func TestCheckWithoutDocumentIsSilent(t *testing.T) {
	if v := Check(nil); v != nil {
		t.Fatalf("Check(nil) = %v", v)
	}
	Check(&Invoice{})
	if _, err := Validate("pdf", nil); err == nil {
		t.Fatal("an unknown syntax must be refused")
	}
}

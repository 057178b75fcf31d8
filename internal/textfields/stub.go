package textfields

import (
	"greatbook/internal/einvoice"
	"greatbook/internal/pagetext"
)

// Read reads a document's fields from its words, by l when it is not nil.
func Read(t pagetext.Text, l *Layout) Reading { return Reading{Fields: map[string]Field{}} }

// Learn learns where the values of d stand on t's pages.
func Learn(t pagetext.Text, d einvoice.Document) Layout { return Layout{} }

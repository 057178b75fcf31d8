// Package reading keeps what the text reading of a PDF or an image found
// (each field's value, confidence and place, and the words themselves) and
// the layouts learned from it: when a person confirms or corrects such a
// document, where its supplier's invoices carry each field is kept, and the
// next invoice of that supplier is read by it.
package reading

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/pagetext"
	"greatbook/internal/textfields"
)

// Reading is a document's text reading as it was filed.
type Reading struct {
	IntakeID    int64                       `json:"intake_id"`
	OrgID       int64                       `json:"-"`
	Source      string                      `json:"source"` // text_layer, ocr or mixed
	Fields      map[string]textfields.Field `json:"fields"`
	Uncertain   []string                    `json:"uncertain"`
	SupplierKey string                      `json:"supplier_key"`
	LayoutID    int64                       `json:"layout_id,omitempty"`
	Pages       int                         `json:"pages"`
	ReadAt      time.Time                   `json:"read_at"`
}

// SourceOf says how t's pages were read: text_layer, ocr, or mixed.
func SourceOf(t pagetext.Text) string {
	text, ocr := false, false
	for _, p := range t.Pages {
		if p.Source == pagetext.OCR {
			ocr = true
		} else {
			text = true
		}
	}
	switch {
	case ocr && text:
		return "mixed"
	case ocr:
		return string(pagetext.OCR)
	}
	return string(pagetext.TextLayer)
}

// SupplierKeyOf is the key a supplier's layout is kept under: its VAT id
// (or other identifier), else its IBAN, else its name; empty when d names
// no seller at all.
func SupplierKeyOf(d einvoice.Document) string {
	if keys := SupplierKeysOf(d); len(keys) > 0 {
		return keys[0]
	}
	return ""
}

// SupplierKeysOf are every key d's seller may be known by, the surest
// first: its VAT id or other identifier, its IBAN, its name. A layout is
// looked up by each in turn, since a first reading may have found only
// some of them.
func SupplierKeysOf(d einvoice.Document) []string {
	var keys []string
	id, ok := d.SellerIdentity()
	if ok && !strings.HasPrefix(id, "name:") {
		keys = append(keys, id)
	}
	if iban := compactIBAN(d.PayeeIBAN); iban != "" {
		keys = append(keys, "iban:"+iban)
	}
	if name, ok := (einvoice.Document{Seller: einvoice.Party{Name: d.Seller.Name}}).SellerIdentity(); ok {
		keys = append(keys, name)
	}
	return keys
}

// compactIBAN is an IBAN upper case without the spaces, dashes and dots it
// may be printed with.
func compactIBAN(iban string) string {
	out := make([]byte, 0, len(iban))
	for i := 0; i < len(iban); i++ {
		c := iban[i]
		switch {
		case c == ' ' || c == '-' || c == '.':
		case c >= 'a' && c <= 'z':
			out = append(out, c-'a'+'A')
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// QueueSave queues the insert of document intakeID's reading r, read from
// t, into b (the filing's commit batch), and counts a use of the layout it
// was read by.
func QueueSave(b *pgx.Batch, orgID, intakeID int64, r textfields.Reading, layoutID int64, t pagetext.Text) error {
	fields, err := json.Marshal(r.Fields)
	if err != nil {
		return fmt.Errorf("reading: encode fields: %w", err)
	}
	words, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("reading: encode words: %w", err)
	}
	uncertain := r.Uncertain
	if uncertain == nil {
		uncertain = []string{}
	}
	b.Queue(insertReadingSQL, intakeID, orgID, SourceOf(t), fields, uncertain, r.SupplierKey, layoutID, words, len(t.Pages)).Fn =
		func(br pgx.BatchResults) error {
			if _, err := br.Exec(); err != nil {
				return fmt.Errorf("reading: save document %d's reading: %w", intakeID, err)
			}
			return nil
		}
	if layoutID != 0 {
		b.Queue(countLayoutUseSQL, layoutID, orgID)
	}
	return nil
}

// Get returns document id's reading; apperr NotFound when it was not read
// from its text.
func Get(ctx context.Context, db database.Executor, orgID, id int64) (Reading, error) {
	var r Reading
	var fields []byte
	err := db.QueryRow(ctx, readingSQL, id, orgID).Scan(&r.IntakeID, &r.OrgID, &r.Source, &fields, &r.Uncertain,
		&r.SupplierKey, &r.LayoutID, &r.Pages, &r.ReadAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Reading{}, apperr.New(apperr.NotFound, "document %d was not read from its text", id)
	}
	if err != nil {
		return Reading{}, fmt.Errorf("reading: document %d: %w", id, err)
	}
	if err := json.Unmarshal(fields, &r.Fields); err != nil {
		return Reading{}, fmt.Errorf("reading: decode document %d's fields: %w", id, err)
	}
	return r, nil
}

// Words returns the words document id's reading was made from.
func Words(ctx context.Context, db database.Executor, orgID, id int64) (pagetext.Text, bool, error) {
	var raw []byte
	err := db.QueryRow(ctx, wordsSQL, id, orgID).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return pagetext.Text{}, false, nil
	}
	if err != nil {
		return pagetext.Text{}, false, fmt.Errorf("reading: document %d's words: %w", id, err)
	}
	var t pagetext.Text
	if err := json.Unmarshal(raw, &t); err != nil {
		return pagetext.Text{}, false, fmt.Errorf("reading: decode document %d's words: %w", id, err)
	}
	return t, true, nil
}

// Service is the readings and layouts as the web pages and the API use
// them.
type Service struct {
	Pool   database.Executor
	Limits pagetext.Limits
}

// Get returns document id's reading.
func (s *Service) Get(ctx context.Context, orgID, id int64) (Reading, error) {
	return Get(ctx, s.Pool, orgID, id)
}

// PageImage draws page n (1-based) of document id, read from its text, as
// a PNG at dpi: the picture a reviewer sees the read places on.
func (s *Service) PageImage(ctx context.Context, orgID, id int64, n, dpi int) ([]byte, error) {
	r, err := Get(ctx, s.Pool, orgID, id)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > r.Pages {
		return nil, apperr.New(apperr.NotFound, "document %d has no read page %d", id, n)
	}
	doc, err := intake.GetDocument(ctx, s.Pool, orgID, id)
	if err != nil {
		return nil, err
	}
	content, err := intake.Original(ctx, s.Pool, orgID, id)
	if err != nil {
		return nil, err
	}
	release, err := acquireRender(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	img, err := pagetext.RenderPage(ctx, content, doc.MediaType, n, dpi, s.Limits)
	return img, pageError(err, id, n)
}

// renders bounds the page images drawn at once: each runs pdftoppm, and a
// reviewer's browser asks for every page of a document together.
var renders = make(chan struct{}, 2)

// acquireRender waits, as long as ctx lets it, for a turn to draw a page
// image; release ends the turn.
func acquireRender(ctx context.Context) (release func(), err error) {
	select {
	case renders <- struct{}{}:
		return func() { <-renders }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pageError says why page n of document id cannot be drawn: a page past the
// reading's limits, or one the tools cannot read, is the document's (422);
// a missing tool is the server's, for a while (503).
func pageError(err error, id int64, n int) error {
	var limit *pagetext.LimitError
	var unreadable *pagetext.UnreadableError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &limit):
		return apperr.Wrap(err, apperr.Invalid, "page %d of document %d cannot be drawn: it goes past the %s limit (%s)", n, id, limit.What, limit.Limit)
	case errors.As(err, &unreadable):
		return apperr.Wrap(err, apperr.Invalid, "page %d of document %d cannot be drawn: the document cannot be read", n, id)
	case errors.Is(err, pagetext.ErrToolMissing):
		return apperr.Wrap(err, apperr.Unavailable, "page images cannot be drawn now: a reading tool is not installed")
	}
	return err
}

// Layouts lists the org's learned layouts.
func (s *Service) Layouts(ctx context.Context, orgID int64) ([]Layout, error) {
	return ListLayouts(ctx, s.Pool, orgID)
}

// Forget forgets one layout of the org.
func (s *Service) Forget(ctx context.Context, orgID, id int64, actor audit.Actor) error {
	return DeleteLayout(ctx, s.Pool, orgID, id, actor)
}

// Reset forgets every layout of the org.
func (s *Service) Reset(ctx context.Context, orgID int64, actor audit.Actor) (int64, error) {
	return ResetLayouts(ctx, s.Pool, orgID, actor)
}

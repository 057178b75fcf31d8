package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/desk"
	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/intake"
	"greatbook/internal/payments"
	"greatbook/internal/pipeline"
	"greatbook/internal/reading"
	"greatbook/internal/review"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// MaxUploadFiles bounds one browser upload without the script (which sends
// one file per request).
const MaxUploadFiles = 50

// UploadPage is the upload form.
func (h *Handlers) UploadPage(c echo.Context) error {
	return httpkit.Page(c, views.UploadPage(h.Chrome(c, "Upload", "upload"), nil))
}

// Upload ingests every file of a multipart form. The page's script sends
// one file per request (to show its progress) and gets back that file's
// outcome; without the script the form sends them all and gets the page.
func (h *Handlers) Upload(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	ctx := c.Request().Context()
	limit := h.App.Pipeline.MaxBytes()
	var results []views.UploadResult
	status := http.StatusOK
	err := eachFile(c, func(name, contentType string, body io.Reader) error {
		if len(results) >= MaxUploadFiles {
			return apperr.New(apperr.Invalid, "at most %d files at once", MaxUploadFiles)
		}
		r := views.UploadResult{Filename: name}
		content, err := httpkit.ReadLimited(body, limit)
		if err == nil {
			var res pipeline.Ingested
			res, err = h.App.Pipeline.Ingest(ctx, intake.Arrival{OrgID: u.OrgID, Content: content,
				MediaType: contentType, Filename: name, Via: "upload", Actor: u.Email})
			if err == nil {
				r = uploadResult(res.Document, "known", 0)
				r.Filename = name
				if res.Created {
					r.Outcome = "new"
				}
			}
		}
		if err != nil {
			e := httpkit.Classify(err)
			if e.Code == apperr.Internal {
				return err
			}
			r.Outcome, r.Error = "refused", e.Message
			status = httpkit.Status(e.Code)
		}
		results = append(results, r)
		return nil
	})
	if err != nil {
		return err
	}
	if len(results) == 0 {
		return apperr.New(apperr.Invalid, "choose at least one file")
	}
	if httpkit.IsHTMX(c) && len(results) == 1 {
		return httpkit.Render(c, status, views.UploadResultItem(results[0]))
	}
	return httpkit.Page(c, views.UploadPage(h.Chrome(c, "Upload", "upload"), results))
}

// UploadOutcome answers an upload result that is still being read with its
// document's state now (the item swaps itself; it stops asking once the
// document is filed, or at views.UploadPollCap asks).
func (h *Handlers) UploadOutcome(c echo.Context) error {
	doc, err := h.pathDocument(c)
	if err != nil {
		return err
	}
	arrival := c.QueryParam("arrival")
	if arrival != "known" {
		arrival = "new"
	}
	poll, _ := strconv.Atoi(c.QueryParam("poll"))
	return httpkit.Render(c, http.StatusOK, views.UploadResultItem(uploadResult(doc, arrival, min(max(poll, 0), views.UploadPollCap))))
}

// uploadResult is an uploaded document's item on the upload page.
func uploadResult(doc intake.Document, arrival string, poll int) views.UploadResult {
	return views.UploadResult{Filename: doc.Filename, Outcome: arrival, DocumentID: doc.ID, Status: string(doc.Status),
		FlagReason: doc.FlagReason, DuplicateOf: doc.DuplicateOf, Poll: poll}
}

// eachFile calls fn for every part named "file" of a multipart request,
// streamed: from the reader whose first part CheckCSRF read (a form sent
// without the script), or from the body (the script's upload, whose token
// came in the header). Nothing is spooled to disk.
func eachFile(c echo.Context, fn func(name, contentType string, body io.Reader) error) error {
	mr := httpkit.UploadParts(c)
	if mr == nil {
		var err error
		if mr, err = c.Request().MultipartReader(); err != nil {
			return apperr.Wrap(err, apperr.Invalid, "send the documents as a multipart form")
		}
	}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return httpkit.FormError(err)
		}
		if part.FormName() != "file" || part.FileName() == "" {
			continue
		}
		if err := fn(intake.CleanFilename(part.FileName()), part.Header.Get("Content-Type"), part); err != nil {
			return err
		}
	}
}

// reader is the signed-in user as the read model sees them.
func reader(c echo.Context) desk.Reader {
	u := httpkit.CurrentUser(c)
	return desk.Reader{OrgID: u.OrgID, Admin: u.IsAdmin(), Label: u.Actor().Label}
}

// documentView gathers what a document's page shows: the document as
// intake reads it, with the bookkeeper's question and the typewriter's
// version chain of the document, where it has them.
func (h *Handlers) documentView(c echo.Context, id int64) (views.DocumentView, error) {
	ctx := c.Request().Context()
	p, err := desk.ReadDocument(ctx, h.Pool, reader(c), id)
	if err != nil {
		return views.DocumentView{}, err
	}
	v := views.DocumentView{Doc: p.Document, Fields: p.Fields, Findings: p.Findings, Verdict: p.Verdict, Group: p.Group,
		Compare: compareView(p.Comparison), History: p.History, Pretty: p.Pretty, Signature: p.Signature, CanTypeIn: p.CanTypeIn, Payable: p.Payable}
	if v.Decision, err = h.decisionView(c, p.Decision, nil); err != nil {
		return v, err
	}
	if v.Queue, err = h.queueNavigation(c, id); err != nil {
		return v, err
	}
	if v.Payment, err = h.paymentState(c, p.Document); err != nil {
		return v, err
	}
	if p.Fields != nil {
		if v.Coding, err = h.codingGrid(c, p.Document, *p.Fields); err != nil {
			return v, err
		}
	}
	if v.Reading, err = h.readingView(c, p.Document); err != nil {
		return v, err
	}
	if p.Document.VersionGroup != 0 {
		chain, err := h.App.Typewriter.Get(ctx, p.Document.OrgID, p.Document.VersionGroup)
		if err != nil {
			return v, err
		}
		v.Chain, v.ChainVersion = &chain, p.Document.TypewriterVersionID
	}
	return v, nil
}

func compareView(c desk.Comparison) views.CompareView {
	return views.CompareView{DocumentID: c.DocumentID, With: c.With, Members: c.Members, Rows: c.Rows}
}

// Compare answers a document page's comparison with another member of its
// duplicate group.
func (h *Handlers) Compare(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	with, _ := strconv.ParseInt(c.QueryParam("with"), 10, 64)
	v, err := desk.ReadComparison(c.Request().Context(), h.Pool, reader(c), id, with)
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.Compare(compareView(v)))
}

// GroupSection answers a document page's group region reading itself
// again after a member's status changed, comparing with the member the page
// had chosen.
func (h *Handlers) GroupSection(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	with, _ := strconv.ParseInt(c.QueryParam("with"), 10, 64)
	v, err := desk.ReadGroup(c.Request().Context(), h.Pool, reader(c), id, with)
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.GroupSection(id, v.Members, compareView(v)))
}

// ChainSection answers a document page's version chain reading itself
// again; a document of no typewriter chain has none (204: nothing to swap).
func (h *Handlers) ChainSection(c echo.Context) error {
	doc, err := h.pathDocument(c)
	if err != nil {
		return err
	}
	if doc.VersionGroup == 0 {
		return c.NoContent(http.StatusNoContent)
	}
	chain, err := h.App.Typewriter.Get(c.Request().Context(), doc.OrgID, doc.VersionGroup)
	if err != nil {
		return err
	}
	return httpkit.Render(c, http.StatusOK, views.ChainSection(doc.ID, chain, doc.TypewriterVersionID))
}

// Watch answers a reviewer's page polling its document's group: nothing
// (204) while the group is as the page saw it; otherwise a notice of what
// changed, and an event that refreshes the page's decision region.
func (h *Handlers) Watch(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	group, err := review.Group(ctx, h.Pool, u.OrgID, id)
	if err != nil {
		return err
	}
	sig := desk.GroupSignature(group, id, u.Actor().Label)
	if sig == c.QueryParam("sig") {
		return c.NoContent(http.StatusNoContent)
	}
	notice := "This document's duplicate group changed while you were looking at it."
	if b, blocked := review.BlockedBy(group, id); blocked {
		notice = fmt.Sprintf("Document %d in this group is %s: this document cannot be approved now.", b.ID, intake.StatusWords(b.Status))
		if b.ApprovedBy != "" && b.ApprovedAt != nil {
			notice = fmt.Sprintf("Document %d in this group was approved by %s at %s and is %s: this document cannot be approved now.",
				b.ID, b.ApprovedBy, b.ApprovedAt.UTC().Format("15:04:05 UTC"), intake.StatusWords(b.Status))
		}
	}
	for _, m := range group {
		if m.ID == id && m.DecidedBy != "" && m.DecidedBy != u.Actor().Label && m.DecidedAt != nil {
			notice = fmt.Sprintf("%s decided this document (%s at %s) while you were looking at it.",
				m.DecidedBy, intake.StatusWords(m.Status), m.DecidedAt.UTC().Format("15:04:05 UTC"))
		}
	}
	c.Response().Header().Set("HX-Trigger", "groupChanged")
	return httpkit.Render(c, http.StatusOK, views.Watch(id, sig, notice))
}

// DocumentPage is a document's page: what intake read of it, its group,
// its decision region and its place in the desk's queue.
func (h *Handlers) DocumentPage(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	v, err := h.documentView(c, id)
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.DocumentPage(h.Chrome(c, fmt.Sprintf("Document %d", id), "desk"), v))
}

// paymentState is a posted document's payment for its page (nil for a
// document not posted).
func (h *Handlers) paymentState(c echo.Context, doc intake.Document) (*views.PaymentStateView, error) {
	if doc.Status != intake.Posted {
		return nil, nil
	}
	st, err := payments.StateOf(c.Request().Context(), h.Pool, doc.OrgID, doc.ID)
	if err != nil {
		return nil, err
	}
	return &views.PaymentStateView{DocType: doc.DocType, State: st, LinksRuns: httpkit.CurrentUser(c).IsAdmin()}, nil
}

// pathDocument is the document the path names, of the user's org.
func (h *Handlers) pathDocument(c echo.Context) (intake.Document, error) {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return intake.Document{}, err
	}
	return intake.GetDocument(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID, id)
}

// Original serves a document's bytes as they arrived. Anything but a PDF is
// sandboxed, so that active content in a supplier's file cannot run here.
func (h *Handlers) Original(c echo.Context) error {
	doc, err := h.pathDocument(c)
	if err != nil {
		return err
	}
	id, u, ctx := doc.ID, httpkit.CurrentUser(c), c.Request().Context()
	content, err := intake.Original(ctx, h.Pool, u.OrgID, id)
	if err != nil {
		return err
	}
	header := c.Response().Header()
	if doc.MediaType != "application/pdf" {
		header.Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'")
	}
	header.Set("Content-Disposition", contentDisposition("inline", doc.Filename, fmt.Sprintf("document-%d", id)))
	return c.Blob(http.StatusOK, doc.MediaType, content)
}

// TypeInForm is the form to type in a flagged document's fields, filled
// with what was read of it.
func (h *Handlers) TypeInForm(c echo.Context) error {
	doc, err := h.pathDocument(c)
	if err != nil {
		return err
	}
	f := views.TypeInForm{Lines: make([]views.TypeInLine, 5)}
	if len(doc.Fields) > 0 {
		var d einvoice.Document
		if json.Unmarshal(doc.Fields, &d) == nil {
			f = formFromDocument(d)
		}
	}
	if f.Read, err = h.readingView(c, doc); err != nil {
		return err
	}
	return httpkit.Page(c, views.TypeInPage(h.Chrome(c, "Type in", "desk"), doc, f))
}

func formFromDocument(d einvoice.Document) views.TypeInForm {
	f := views.TypeInForm{Type: string(d.Type), Number: d.Number, IssueDate: d.IssueDate, DueDate: d.DueDate, Currency: d.Currency,
		SellerName: d.Seller.Name, SellerVAT: d.Seller.VATID, BuyerName: d.Buyer.Name, BuyerVAT: d.Buyer.VATID, BillingReference: d.BillingReference,
		IBAN: d.PayeeIBAN}
	for _, l := range d.Lines {
		f.Lines = append(f.Lines, views.TypeInLine{Description: l.Description, Quantity: l.Quantity.String(),
			UnitPrice: l.UnitPrice.String(), TaxRate: l.TaxRate.String()})
	}
	for len(f.Lines) < 5 {
		f.Lines = append(f.Lines, views.TypeInLine{})
	}
	return f
}

// TypeIn files a flagged document with the fields a person typed in.
func (h *Handlers) TypeIn(c echo.Context) error {
	doc, err := h.pathDocument(c)
	if err != nil {
		return err
	}
	id, u, ctx := doc.ID, httpkit.CurrentUser(c), c.Request().Context()
	form := formOf(c)
	if form.Read, err = h.readingView(c, doc); err != nil {
		return err
	}
	again := func(status int, f views.TypeInForm) error {
		return httpkit.Render(c, status, views.TypeInPage(h.Chrome(c, "Type in", "desk"), doc, f))
	}
	d, err := documentFromForm(form)
	if err != nil {
		form.Error = err.Error()
		return again(http.StatusUnprocessableEntity, form)
	}
	filed, findings, err := h.App.Pipeline.TypeIn(ctx, u.OrgID, id, d, u.Actor())
	if errors.Is(err, intake.ErrNotRefileable) {
		return apperr.New(apperr.InvalidState, "document %d is %s and cannot be typed in", id, doc.Status)
	}
	if err != nil {
		return err
	}
	if len(findings) > 0 {
		form.Findings = findings
		return again(http.StatusUnprocessableEntity, form)
	}
	httpkit.Flash(c, fmt.Sprintf("Document %d filed %s.", id, intake.StatusWords(filed.Status)))
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/intake/%d", id))
}

// documentFromForm builds the project's JSON document from the form and
// reads it with the same parser as an upload (totals computed).
func documentFromForm(f views.TypeInForm) (einvoice.Document, error) {
	type party struct {
		Name  string `json:"name"`
		VATID string `json:"vat_id,omitempty"`
	}
	type line struct {
		Description string `json:"description"`
		Quantity    string `json:"quantity"`
		UnitPrice   string `json:"unit_price"`
		TaxRate     string `json:"tax_rate"`
	}
	body := map[string]any{"type": f.Type, "number": strings.TrimSpace(f.Number), "issue_date": f.IssueDate, "currency": f.Currency,
		"seller": party{Name: strings.TrimSpace(f.SellerName), VATID: strings.TrimSpace(f.SellerVAT)},
		"buyer":  party{Name: strings.TrimSpace(f.BuyerName), VATID: strings.TrimSpace(f.BuyerVAT)}}
	if f.DueDate != "" {
		body["due_date"] = f.DueDate
	}
	if ref := strings.TrimSpace(f.BillingReference); ref != "" {
		body["billing_reference"] = ref
	}
	if iban := strings.TrimSpace(f.IBAN); iban != "" {
		body["payee_iban"] = iban
	}
	var lines []line
	for _, l := range f.Lines {
		if strings.TrimSpace(l.Description+l.Quantity+l.UnitPrice) == "" {
			continue
		}
		rate := strings.TrimSpace(l.TaxRate)
		if rate == "" {
			rate = "0"
		}
		lines = append(lines, line{Description: strings.TrimSpace(l.Description), Quantity: strings.TrimSpace(l.Quantity),
			UnitPrice: strings.TrimSpace(l.UnitPrice), TaxRate: rate})
	}
	body["lines"] = lines
	raw, _ := json.Marshal(body)
	return ownjson.Parse(raw)
}

func at(xs []string, i int) string {
	if i < len(xs) {
		return xs[i]
	}
	return ""
}

// readingView is how a document without e-invoice data was read from its
// text, for its page and its type-in form: nil for a document not read so.
func (h *Handlers) readingView(c echo.Context, doc intake.Document) (*views.ReadingView, error) {
	if doc.MediaType != "application/pdf" && !strings.HasPrefix(doc.MediaType, "image/") {
		return nil, nil
	}
	ctx := c.Request().Context()
	r, err := h.App.Readings.Get(ctx, doc.OrgID, doc.ID)
	if apperr.Is(err, apperr.NotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v := &views.ReadingView{Reading: r}
	if r.LayoutID != 0 {
		// A layout forgotten since is "the supplier's".
		if l, err := reading.GetLayout(ctx, h.Pool, doc.OrgID, r.LayoutID); err == nil {
			v.Supplier = l.SupplierName
		} else if !apperr.Is(err, apperr.NotFound) {
			return nil, err
		}
	}
	return v, nil
}

// contentDisposition is the header that names a file sent back (RFC 6266):
// the stored name cleaned again (rows stored before names were cleaned at
// the door), or fallback, encoded as RFC 2231/5987 where it is not ASCII.
func contentDisposition(disposition, filename, fallback string) string {
	name := intake.CleanFilename(filename)
	if name == "" {
		name = fallback
	}
	if v := mime.FormatMediaType(disposition, map[string]string{"filename": name}); v != "" {
		return v
	}
	return mime.FormatMediaType(disposition, map[string]string{"filename": fallback})
}

package ui

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/typewriter"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// TypewriterList lists the org's typewriter documents.
func (h *Handlers) TypewriterList(c echo.Context) error {
	docs, err := h.App.Typewriter.List(c.Request().Context(), httpkit.CurrentUser(c).OrgID)
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.TypewriterListPage(h.Chrome(c, "Typewriter", "typewriter"), docs))
}

func emptyForm() views.TypeInForm {
	return views.TypeInForm{Currency: "EUR", Lines: make([]views.TypeInLine, 5)}
}

// ComposeForm is the empty form of a new typewriter document.
func (h *Handlers) ComposeForm(c echo.Context) error {
	return httpkit.Page(c, views.ComposePage(h.Chrome(c, "Compose", "typewriter"), "Compose a document", "/typewriter", emptyForm()))
}

// formOf reads the document form: the typewriter's compose and revise, and
// type-in, send the same fields (DocumentFields).
func formOf(c echo.Context) views.TypeInForm {
	f := views.TypeInForm{Type: c.FormValue("type"), Number: c.FormValue("number"), IssueDate: c.FormValue("issue_date"),
		DueDate: c.FormValue("due_date"), Currency: strings.ToUpper(strings.TrimSpace(c.FormValue("currency"))),
		SellerName: c.FormValue("seller_name"), SellerVAT: c.FormValue("seller_vat_id"), BuyerName: c.FormValue("buyer_name"),
		BuyerVAT: c.FormValue("buyer_vat_id"), BillingReference: c.FormValue("billing_reference"), IBAN: c.FormValue("payee_iban")}
	values, _ := c.FormParams()
	descs, qtys, prices, rates := values["line_description"], values["line_quantity"], values["line_unit_price"], values["line_tax_rate"]
	for i := range descs {
		f.Lines = append(f.Lines, views.TypeInLine{Description: descs[i], Quantity: at(qtys, i), UnitPrice: at(prices, i), TaxRate: at(rates, i)})
	}
	for len(f.Lines) < 5 {
		f.Lines = append(f.Lines, views.TypeInLine{})
	}
	return f
}

// Preview renders the document the form describes, as it will be saved.
func (h *Handlers) Preview(c echo.Context) error {
	d, err := documentFromForm(formOf(c))
	if err != nil {
		return httpkit.Render(c, http.StatusOK, views.Preview(views.PreviewProps{Error: err.Error()}))
	}
	return httpkit.Render(c, http.StatusOK, views.Preview(views.PreviewProps{Doc: &d, Findings: einvoice.Validate(d)}))
}

// Compose saves a new typewriter document as its version 1; a form the
// parser refuses is shown again with why.
func (h *Handlers) Compose(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	f := formOf(c)
	d, err := documentFromForm(f)
	if err == nil {
		var doc typewriter.Document
		doc, err = h.App.Typewriter.Compose(c.Request().Context(), u.OrgID, d, u.Actor())
		if err == nil {
			httpkit.Flash(c, "Saved as version 1.")
			return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/typewriter/%d", doc.ID))
		}
	}
	if e := httpkit.Classify(err); e.Code == apperr.Invalid {
		f.Error = e.Message
		return httpkit.Render(c, http.StatusUnprocessableEntity, views.ComposePage(h.Chrome(c, "Compose", "typewriter"), "Compose a document", "/typewriter", f))
	}
	return err
}

// TypewriterPage is a typewriter document with its versions and the
// difference of the last two.
func (h *Handlers) TypewriterPage(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	d, err := h.App.Typewriter.Get(c.Request().Context(), httpkit.CurrentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	diff := diffView(d, len(d.Versions)-1, len(d.Versions))
	return httpkit.Page(c, views.TypewriterPage(h.Chrome(c, "Typewriter document", "typewriter"), d, diff))
}

// diffView compares versions a and b (numbers) of a document.
func diffView(d typewriter.Document, a, b int) views.DiffView {
	v := views.DiffView{DocumentID: d.ID, A: a, B: b}
	var da, db *einvoice.Document
	for i := range d.Versions {
		v.Numbers = append(v.Numbers, d.Versions[i].Number)
		if d.Versions[i].Number == a {
			da = &d.Versions[i].Body
		}
		if d.Versions[i].Number == b {
			db = &d.Versions[i].Body
		}
	}
	if da != nil && db != nil {
		v.Rows = typewriter.Diff(*da, *db)
	}
	return v
}

// TypewriterDiff answers the page's comparison of two versions.
func (h *Handlers) TypewriterDiff(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	d, err := h.App.Typewriter.Get(c.Request().Context(), httpkit.CurrentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	a, _ := strconv.Atoi(c.QueryParam("a"))
	b, _ := strconv.Atoi(c.QueryParam("b"))
	return httpkit.Render(c, http.StatusOK, views.DiffTable(diffView(d, a, b)))
}

// ReviseForm is the form of a document's next version, filled with the
// latest.
func (h *Handlers) ReviseForm(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	d, err := h.App.Typewriter.Get(c.Request().Context(), httpkit.CurrentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	latest := d.Latest()
	return httpkit.Page(c, views.ComposePage(h.Chrome(c, "Revise", "typewriter"), fmt.Sprintf("Revise: version %d", latest.Number+1),
		fmt.Sprintf("/typewriter/%d/revise", id), formFromDocument(latest.Body)))
}

// Revise saves the form as the document's next version; a form the parser
// refuses is shown again with why.
func (h *Handlers) Revise(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	// Another org's document is 404 before its form is judged.
	if _, err := h.App.Typewriter.Get(c.Request().Context(), u.OrgID, id); err != nil {
		return err
	}
	f := formOf(c)
	d, err := documentFromForm(f)
	if err == nil {
		var v typewriter.Version
		v, err = h.App.Typewriter.Revise(c.Request().Context(), u.OrgID, id, d, u.Actor())
		if err == nil {
			httpkit.Flash(c, fmt.Sprintf("Saved as version %d.", v.Number))
			return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/typewriter/%d", id))
		}
	}
	if e := httpkit.Classify(err); e.Code == apperr.Invalid {
		f.Error = e.Message
		return httpkit.Render(c, http.StatusUnprocessableEntity, views.ComposePage(h.Chrome(c, "Revise", "typewriter"), "Revise",
			fmt.Sprintf("/typewriter/%d/revise", id), f))
	}
	return err
}

// SubmitVersion sends a version's PDF through intake and says how it was
// filed.
func (h *Handlers) SubmitVersion(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	ctx := c.Request().Context()
	v, err := h.App.Typewriter.Version(ctx, u.OrgID, id)
	if err != nil {
		return err
	}
	doc, err := h.App.Typewriter.Submit(ctx, u.OrgID, id, u.Actor())
	if err != nil {
		return err
	}
	msg := fmt.Sprintf("Version %d submitted: intake document %d, %s.", v.Number, doc.ID, intake.StatusWords(doc.Status))
	if doc.DuplicateOf != 0 {
		msg = fmt.Sprintf("Version %d submitted: intake document %d, flagged %s.", v.Number, doc.ID, intake.DuplicateClause(doc.DuplicateReason, doc.DuplicateOf))
	}
	httpkit.Flash(c, msg)
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/typewriter/%d", v.DocumentID))
}

// VersionPDF is the typewriter page's link to a version's PDF.
func (h *Handlers) VersionPDF(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	pdf, err := h.App.Typewriter.PDF(c.Request().Context(), httpkit.CurrentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `inline; filename="version-`+c.Param("id")+`.pdf"`)
	return c.Blob(http.StatusOK, "application/pdf", pdf)
}

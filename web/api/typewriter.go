package api

import (
	"errors"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/typewriter"
	"greatbook/web/httpkit"
)

// readOwnJSON reads a document in the project's JSON format, strictly:
// unknown fields and money as JSON numbers are 422s.
func readOwnJSON(c echo.Context) (einvoice.Document, error) {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, MaxJSONBody+1))
	if err != nil {
		return einvoice.Document{}, httpkit.Classify(err)
	}
	if len(body) > MaxJSONBody {
		return einvoice.Document{}, apperr.New(apperr.TooLarge, "the document is larger than %d bytes", MaxJSONBody)
	}
	d, err := ownjson.Parse(body)
	if err != nil {
		field := "document"
		var pe *einvoice.ParseError
		if errors.As(err, &pe) && pe.Field != "" {
			field = pe.Field
		}
		return einvoice.Document{}, apperr.Wrap(err, apperr.Invalid, "the JSON document is not valid: %v", err).
			With("reasons", []map[string]string{{"field": field, "message": err.Error()}})
	}
	return d, nil
}

func versionJSON(v typewriter.Version) map[string]any {
	out := map[string]any{"id": v.ID, "number": v.Number, "pdf_sha256": v.PDFSHA256, "document_id": v.DocumentID}
	if v.SupersedesID != 0 {
		out["supersedes_id"] = v.SupersedesID
	}
	return out
}

// Compose is POST /api/v1/typewriter/documents.
func (h *Handlers) Compose(c echo.Context) error {
	d, err := readOwnJSON(c)
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	doc, err := h.App.Typewriter.Compose(c.Request().Context(), u.OrgID, d, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"id": doc.ID, "version": versionJSON(doc.Versions[0])})
}

// Revise is POST /api/v1/typewriter/documents/{id}/versions.
func (h *Handlers) Revise(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	d, err := readOwnJSON(c)
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	v, err := h.App.Typewriter.Revise(c.Request().Context(), u.OrgID, id, d, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, versionJSON(v))
}

// VersionPDF is GET /api/v1/typewriter/versions/{id}/pdf.
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

// SubmitVersion is POST /api/v1/typewriter/versions/{id}/submit.
func (h *Handlers) SubmitVersion(c echo.Context) error {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return err
	}
	u := httpkit.CurrentUser(c)
	doc, err := h.App.Typewriter.Submit(c.Request().Context(), u.OrgID, id, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"intake_id": doc.ID, "status": doc.Status, "duplicate_of": nullableID(doc.DuplicateOf)})
}

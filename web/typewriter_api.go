package web

import (
	"errors"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/typewriter"
)

// readOwnJSON reads a document in the project's JSON format, strictly:
// unknown fields and money as JSON numbers are 422s.
func readOwnJSON(c echo.Context) (einvoice.Document, error) {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, maxJSONBody+1))
	if err != nil {
		return einvoice.Document{}, toAppError(err)
	}
	if len(body) > maxJSONBody {
		return einvoice.Document{}, apperr.New(apperr.TooLarge, "the document is larger than %d bytes", maxJSONBody)
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

// apiCompose is POST /api/v1/typewriter/documents.
func (s *Server) apiCompose(c echo.Context) error {
	d, err := readOwnJSON(c)
	if err != nil {
		return err
	}
	u := currentUser(c)
	doc, err := s.app.Typewriter.Compose(c.Request().Context(), u.OrgID, d, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"id": doc.ID, "version": versionJSON(doc.Versions[0])})
}

// apiRevise is POST /api/v1/typewriter/documents/{id}/versions.
func (s *Server) apiRevise(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	d, err := readOwnJSON(c)
	if err != nil {
		return err
	}
	u := currentUser(c)
	v, err := s.app.Typewriter.Revise(c.Request().Context(), u.OrgID, id, d, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, versionJSON(v))
}

// apiVersionPDF is GET /api/v1/typewriter/versions/{id}/pdf (and the page's link).
func (s *Server) apiVersionPDF(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	pdf, err := s.app.Typewriter.PDF(c.Request().Context(), currentUser(c).OrgID, id)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `inline; filename="version-`+c.Param("id")+`.pdf"`)
	return c.Blob(http.StatusOK, "application/pdf", pdf)
}

// apiSubmitVersion is POST /api/v1/typewriter/versions/{id}/submit.
func (s *Server) apiSubmitVersion(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	u := currentUser(c)
	doc, err := s.app.Typewriter.Submit(c.Request().Context(), u.OrgID, id, u.Actor())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"intake_id": doc.ID, "status": doc.Status, "duplicate_of": nullableID(doc.DuplicateOf)})
}

package web

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/intake"
)

// readDocument reads an uploaded document: the raw body, or the part named
// "file" of a multipart form. Bodies over the limit are refused before
// anything is written.
func (s *Server) readDocument(c echo.Context) (content []byte, mediaType, filename string, err error) {
	limit := s.app.Pipeline.MaxBytes()
	req := c.Request()
	ct, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	if ct == "multipart/form-data" {
		mr, err := req.MultipartReader()
		if err != nil {
			return nil, "", "", apperr.Wrap(err, apperr.Invalid, "the multipart body cannot be read")
		}
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return nil, "", "", apperr.New(apperr.Invalid, "the form has no field named file")
			}
			if err != nil {
				return nil, "", "", formError(err)
			}
			if part.FormName() != "file" {
				continue
			}
			content, err := readLimited(part, limit)
			if err != nil {
				return nil, "", "", err
			}
			// The name goes only to the store, which cleans it.
			return content, part.Header.Get("Content-Type"), part.FileName(), nil
		}
	}
	content, err = readLimited(req.Body, limit)
	return content, req.Header.Get(echo.HeaderContentType), "", err
}

func readLimited(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, toAppError(err)
	}
	if int64(len(b)) > limit {
		return nil, apperr.New(apperr.TooLarge, "the document is larger than the limit of %d bytes", limit)
	}
	return b, nil
}

// apiUploadDocument is POST /api/v1/documents: 202 for content new to the
// org (filed in the background), 200 with the current status for bytes
// that arrived before.
func (s *Server) apiUploadDocument(c echo.Context) error {
	u := currentUser(c)
	content, mediaType, filename, err := s.readDocument(c)
	if err != nil {
		return err
	}
	res, err := s.app.Pipeline.Ingest(c.Request().Context(), intake.Arrival{OrgID: u.OrgID, Content: content,
		MediaType: mediaType, Filename: filename, Via: "api", Actor: u.Email})
	if err != nil {
		return err
	}
	if res.Created {
		return c.JSON(http.StatusAccepted, map[string]any{"intake_id": res.Document.ID, "status": res.Document.Status, "run_id": res.RunID})
	}
	return c.JSON(http.StatusOK, map[string]any{"intake_id": res.Document.ID, "status": res.Document.Status})
}

// apiGetIntake is GET /api/v1/intake/{id}.
func (s *Server) apiGetIntake(c echo.Context) error {
	doc, group, err := s.documentAndGroup(c)
	if err != nil {
		return err
	}
	body, err := s.intakeJSON(c, doc, group)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

// intakeJSON is a document as the API shows it (API.md, with additions).
func (s *Server) intakeJSON(c echo.Context, d intake.Document, group []intake.Member) (map[string]any, error) {
	members := make([]map[string]any, 0, len(group))
	for _, m := range group {
		members = append(members, map[string]any{"id": m.ID, "status": m.Status})
	}
	fields := json.RawMessage(`{}`)
	if len(d.Fields) > 0 {
		fields = d.Fields
	}
	// Every finding with its severity, fatal ones first (API.md), the AP checks' among them.
	findings, err := intake.Findings(c.Request().Context(), s.pool, d)
	if err != nil {
		return nil, err
	}
	job, err := s.jobJSON(c, d)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"id": d.ID, "status": d.Status, "doc_type": nullable(d.DocType), "source_ref": nullable(d.SourceRef),
		"content_hash": d.ContentHash, "flag_reason": nullable(d.FlagReason), "duplicate_of": nullableID(d.DuplicateOf),
		"duplicate_reason": nullable(d.DuplicateReason), "group": members, "fields": fields, "findings": findings,
		"job": job, "result_entry_id": nullableID(d.ResultEntryID),
		"format": nullable(d.Format), "profile": nullable(d.Profile), "media_type": d.MediaType, "filename": d.Filename, "size_bytes": d.Size,
		"received_at": d.ReceivedAt, "queued_at": d.QueuedAt, "run_id": nullable(d.PipelineRunID),
	}, nil
}

// jobJSON is the document's outbox job, or null.
func (s *Server) jobJSON(c echo.Context, d intake.Document) (any, error) {
	job, ok, err := intake.JobForDocument(c.Request().Context(), s.pool, d.OrgID, d.ID)
	if err != nil || !ok {
		return nil, err
	}
	return map[string]any{"id": job.ID, "status": job.Status, "attempts": job.Attempts, "last_error": nullable(job.LastError),
		"error_class": nullable(job.ErrorClass), "run_id": nullable(job.RunID), "launched_at": job.LaunchedAt,
		"next_attempt_at": job.NextAttemptAt}, nil
}

func nullable(s string) any {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return s
}

func nullableID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

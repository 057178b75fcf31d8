package api

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/coding"
	"greatbook/internal/desk"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/payments"
	"greatbook/internal/review"
	"greatbook/web/httpkit"
)

// readDocument reads an uploaded document: the raw body, or the part named
// "file" of a multipart form. Bodies over the limit are refused before
// anything is written.
func (h *Handlers) readDocument(c echo.Context) (content []byte, mediaType, filename string, err error) {
	limit := h.App.Pipeline.MaxBytes()
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
				return nil, "", "", httpkit.FormError(err)
			}
			if part.FormName() != "file" {
				continue
			}
			content, err := httpkit.ReadLimited(part, limit)
			if err != nil {
				return nil, "", "", err
			}
			// The name goes only to the store, which cleans it.
			return content, part.Header.Get("Content-Type"), part.FileName(), nil
		}
	}
	content, err = httpkit.ReadLimited(req.Body, limit)
	return content, req.Header.Get(echo.HeaderContentType), "", err
}

// UploadDocument is POST /api/v1/documents: 202 for content new to the
// org (filed in the background), 200 with the current status for bytes
// that arrived before.
func (h *Handlers) UploadDocument(c echo.Context) error {
	u := httpkit.CurrentUser(c)
	content, mediaType, filename, err := h.readDocument(c)
	if err != nil {
		return err
	}
	res, err := h.App.Pipeline.Ingest(c.Request().Context(), intake.Arrival{OrgID: u.OrgID, Content: content,
		MediaType: mediaType, Filename: filename, Via: "api", Actor: u.Email})
	if err != nil {
		return err
	}
	if res.Created {
		return c.JSON(http.StatusAccepted, map[string]any{"intake_id": res.Document.ID, "status": res.Document.Status, "run_id": res.RunID})
	}
	return c.JSON(http.StatusOK, map[string]any{"intake_id": res.Document.ID, "status": res.Document.Status})
}

// documentAndGroup loads the document the path names, of the caller's org,
// and its duplicate group.
func (h *Handlers) documentAndGroup(c echo.Context) (intake.Document, []review.Member, error) {
	id, err := httpkit.PathID(c, "id")
	if err != nil {
		return intake.Document{}, nil, err
	}
	ctx := c.Request().Context()
	doc, err := intake.GetDocument(ctx, h.Pool, httpkit.CurrentUser(c).OrgID, id)
	if err != nil {
		return doc, nil, err
	}
	group, err := review.Group(ctx, h.Pool, doc.OrgID, doc.ID)
	return doc, group, err
}

// GetIntake is GET /api/v1/intake/{id}.
func (h *Handlers) GetIntake(c echo.Context) error {
	doc, group, err := h.documentAndGroup(c)
	if err != nil {
		return err
	}
	body, err := h.intakeJSON(c, doc, group)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

// ListIntake is GET /api/v1/intake: a page of the org's documents,
// newest first, each as GET /api/v1/intake/{id} shows it, and the cursor
// of the next page (null on the last).
func (h *Handlers) ListIntake(c echo.Context) error {
	v, err := queryParams(c, []string{"status", "flag_reason", "supplier", "q", "received_after", "limit", "cursor"})
	if err != nil {
		return err
	}
	f := desk.ListFilter{Status: intake.Status(v.Get("status")), FlagReason: v.Get("flag_reason"),
		Supplier: v.Get("supplier"), Query: v.Get("q")}
	if f.Limit, err = limitParam(v, desk.DefaultListLimit, desk.MaxListLimit); err != nil {
		return err
	}
	after, dateOnly, err := timeParam(v, "received_after")
	if err != nil {
		return err
	}
	if dateOnly {
		// A date keeps the documents received on that day and later.
		after = after.Add(-time.Microsecond)
	}
	f.ReceivedAfter = after
	if cursor := v.Get("cursor"); cursor != "" {
		parts, err := decodeCursor("intake", cursor, 1)
		if err != nil {
			return err
		}
		if f.Before, err = strconv.ParseInt(parts[0], 10, 64); err != nil || f.Before <= 0 {
			return invalidParam("cursor", "is not a cursor this listing gave (pass next_cursor as it came)")
		}
	}
	page, err := desk.List(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID, f)
	if err != nil {
		return nameParameter(err)
	}
	ids := make([]int64, 0, len(page.Documents))
	for _, d := range page.Documents {
		ids = append(ids, d.ID)
	}
	approvals, err := review.ApprovalsOf(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID, ids)
	if err != nil {
		return err
	}
	codings, err := coding.ReadOf(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID, ids)
	if err != nil {
		return err
	}
	paid, err := payments.StatesOf(c.Request().Context(), h.Pool, httpkit.CurrentUser(c).OrgID, ids)
	if err != nil {
		return err
	}
	docs := make([]map[string]any, 0, len(page.Documents))
	for _, d := range page.Documents {
		var job *jobs.Job
		if j, ok := page.Jobs[d.ID]; ok {
			job = &j
		}
		docs = append(docs, intakeBody(d, page.Groups[d.ID], page.Findings[d.ID], job, approvals[d.ID], codings[d.ID], paid[d.ID]))
	}
	next := ""
	if page.Next != 0 {
		next = encodeCursor("intake", strconv.FormatInt(page.Next, 10))
	}
	return c.JSON(http.StatusOK, map[string]any{"documents": docs, "next_cursor": nextCursor(next)})
}

// intakeJSON is a document as the API shows it (docs/api.md, "A document as the API shows it"),
// reading its findings and job; the listing reads those for a whole page
// and builds each document with intakeBody, so both routes say the same.
func (h *Handlers) intakeJSON(c echo.Context, d intake.Document, group []review.Member) (map[string]any, error) {
	// Every finding with its severity, fatal ones first (docs/api.md), the AP checks' among them.
	findings, err := desk.Findings(c.Request().Context(), h.Pool, d)
	if err != nil {
		return nil, err
	}
	job, ok, err := jobs.ForDocument(c.Request().Context(), h.Pool, d.OrgID, d.ID)
	if err != nil {
		return nil, err
	}
	var jobp *jobs.Job
	if ok {
		jobp = &job
	}
	approvals, err := review.Approvals(c.Request().Context(), h.Pool, d.OrgID, d.ID)
	if err != nil {
		return nil, err
	}
	rows, err := coding.Read(c.Request().Context(), h.Pool, d.OrgID, d.ID)
	if err != nil {
		return nil, err
	}
	payment, err := payments.StateOf(c.Request().Context(), h.Pool, d.OrgID, d.ID)
	if err != nil {
		return nil, err
	}
	return intakeBody(d, group, findings, jobp, approvals, rows, payment), nil
}

// givenJSON are a document's approvals as docs/api.md shows them.
func givenJSON(gs []review.Given) []review.Given {
	if gs == nil {
		return []review.Given{}
	}
	return gs
}

// intakeBody is the JSON of a document from what was read of it; job and
// payment are nil when it has none.
func intakeBody(d intake.Document, group []review.Member, findings []einvoice.Finding, job *jobs.Job, approvals review.ApprovalState, rows []coding.Row,
	payment *payments.State) map[string]any {
	members := make([]map[string]any, 0, len(group))
	for _, m := range group {
		members = append(members, map[string]any{"id": m.ID, "status": m.Status})
	}
	fields := json.RawMessage(`{}`)
	if len(d.Fields) > 0 {
		fields = d.Fields
	}
	if findings == nil {
		findings = []einvoice.Finding{}
	}
	return map[string]any{
		"id": d.ID, "status": d.Status, "doc_type": nullable(d.DocType), "source_ref": nullable(d.SourceRef),
		"content_hash": d.ContentHash, "flag_reason": nullable(d.FlagReason), "duplicate_of": nullableID(d.DuplicateOf),
		"duplicate_reason": nullable(d.DuplicateReason), "group": members, "fields": fields, "findings": findings,
		"job": jobJSON(job), "result_entry_id": nullableID(d.ResultEntryID),
		"format": nullable(d.Format), "profile": nullable(d.Profile), "media_type": d.MediaType, "filename": d.Filename, "size_bytes": d.Size,
		"received_at": d.ReceivedAt, "queued_at": d.QueuedAt, "run_id": nullable(d.PipelineRunID),
		"approvals": givenJSON(approvals.Approvals), "approvals_required": approvals.Required,
		"coding": codingJSON(rows, currencyOf(d.Fields)), "payment": payment,
	}
}

// jobJSON is the document's outbox job, or null.
func jobJSON(job *jobs.Job) any {
	if job == nil {
		return nil
	}
	return map[string]any{"id": job.ID, "status": job.Status, "attempts": job.Attempts, "last_error": nullable(job.LastError),
		"error_class": nullable(job.ErrorClass), "run_id": nullable(job.RunID), "launched_at": job.LaunchedAt,
		"next_attempt_at": job.NextAttemptAt}
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

package pipeline

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/ownjson"
	"greatbook/internal/retry"
)

// ModelConfig configures the optional model extractor: an OpenAI-compatible
// chat completions endpoint. Off unless URL is set.
type ModelConfig struct {
	URL     string // base URL, e.g. http://127.0.0.1:8000/v1
	Model   string
	APIKey  string
	Timeout time.Duration // per request (default 60 s)
	Retry   retry.Policy
	Client  *http.Client
}

// ModelExtractor reads scans, images and PDFs without embedded data by
// asking a model for the project's JSON format.
type ModelExtractor struct{ cfg ModelConfig }

// NewModelExtractor returns the extractor, or nil when cfg.URL is empty.
func NewModelExtractor(cfg ModelConfig) *ModelExtractor {
	if cfg.URL == "" {
		return nil
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Retry.Attempts == 0 {
		cfg.Retry = retry.Default
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{}
	}
	return &ModelExtractor{cfg: cfg}
}

// Name implements Extractor.
func (m *ModelExtractor) Name() string { return "model" }

// Repairable implements Extractor: told what was wrong, a model may do better.
func (m *ModelExtractor) Repairable() bool { return true }

// HTTPStatusError is a model server's error status. 429 and 5xx are
// transient (429 with the server's Retry-After); other statuses are not.
type HTTPStatusError struct {
	Status int
	After  time.Duration
	Body   string
}

func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("pipeline: model server answered %d: %s", e.Status, e.Body)
}

// RetryClass implements retry.Classifier.
func (e *HTTPStatusError) RetryClass() retry.Class {
	if e.Status == http.StatusTooManyRequests || e.Status >= 500 {
		return retry.Transient
	}
	return retry.Permanent
}

// RetryAfter implements retry.RetryAfterer.
func (e *HTTPStatusError) RetryAfter() time.Duration { return e.After }

const modelInstructions = `You read supplier invoices and credit notes. Answer with one JSON object and nothing else, in this format:
{"type": "invoice" or "credit_note", "number": "...", "issue_date": "YYYY-MM-DD", "due_date": "YYYY-MM-DD" or omitted,
 "currency": "ISO 4217 code", "seller": {"name": "...", "vat_id": "..."}, "buyer": {"name": "...", "vat_id": "..."},
 "lines": [{"description": "...", "quantity": "2", "unit_price": "50.00", "tax_rate": "25"}],
 "totals": {"net": "100.00", "tax": "25.00", "payable": "125.00"}, "billing_reference": null or "..."}
Amounts are decimal strings with a dot. Copy what the document says; never invent a value.`

// Extract implements Extractor. Transient faults are retried here, within
// the policy; what is left when the attempts are spent is permanent, so
// that nothing above retries again.
func (m *ModelExtractor) Extract(ctx context.Context, content []byte, mediaType string, hints []einvoice.Finding) (einvoice.Document, error) {
	var doc einvoice.Document
	err := retry.Do(ctx, m.cfg.Retry, func(int) error {
		var err error
		doc, err = m.call(ctx, content, mediaType, hints)
		return err
	})
	if err != nil {
		return einvoice.Document{}, retry.MarkPermanent(err)
	}
	return doc, nil
}

func (m *ModelExtractor) call(ctx context.Context, content []byte, mediaType string, hints []einvoice.Finding) (einvoice.Document, error) {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	prompt := "Extract this document."
	if len(hints) > 0 {
		var b strings.Builder
		b.WriteString("Extract this document again. Your previous answer had these problems:\n")
		for _, h := range hints {
			fmt.Fprintf(&b, "- %s: %s\n", h.Field, h.Message)
		}
		prompt = b.String()
	}
	dataURL := "data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString(content)
	part := map[string]any{"type": "image_url", "image_url": map[string]string{"url": dataURL}}
	if mediaType == "application/pdf" {
		part = map[string]any{"type": "file", "file": map[string]string{"filename": "document.pdf", "file_data": dataURL}}
	}
	body, _ := json.Marshal(map[string]any{
		"model":           m.cfg.Model,
		"temperature":     0,
		"response_format": map[string]string{"type": "json_object"},
		"messages": []map[string]any{
			{"role": "system", "content": modelInstructions},
			{"role": "user", "content": []map[string]any{{"type": "text", "text": prompt}, part}},
		},
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(m.cfg.URL, "/")+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return einvoice.Document{}, retry.MarkPermanent(fmt.Errorf("pipeline: model request: %w", err))
	}
	req.Header.Set("Content-Type", "application/json")
	if m.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+m.cfg.APIKey)
	}
	resp, err := m.cfg.Client.Do(req)
	if err != nil {
		return einvoice.Document{}, fmt.Errorf("pipeline: model call: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return einvoice.Document{}, fmt.Errorf("pipeline: model response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return einvoice.Document{}, &HTTPStatusError{Status: resp.StatusCode, After: parseRetryAfter(resp.Header.Get("Retry-After")),
			Body: strings.TrimSpace(string(raw[:min(len(raw), 200)]))}
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Choices) == 0 {
		return einvoice.Document{}, retry.MarkPermanent(fmt.Errorf("pipeline: the model server's answer is not a chat completion"))
	}
	doc, err := ownjson.Parse([]byte(out.Choices[0].Message.Content))
	if err != nil {
		// The model's content is not the format: a finding for the
		// repair loop, not a fault of the server.
		return einvoice.Document{}, &unreadableOutput{err: err}
	}
	doc.Format = "model"
	return doc, nil
}

// unreadableOutput is model output that is not the project's JSON format.
type unreadableOutput struct{ err error }

func (e *unreadableOutput) Error() string {
	return "pipeline: the model's answer is unreadable: " + e.err.Error()
}
func (e *unreadableOutput) Unwrap() error           { return e.err }
func (e *unreadableOutput) RetryClass() retry.Class { return retry.Permanent }

// parseRetryAfter reads delay-seconds or an HTTP date.
func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

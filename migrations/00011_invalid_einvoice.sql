-- +goose Up
-- A document that was read but breaks a rule is flagged invalid_einvoice
-- (API.md); extraction_failed is kept for documents whose facts could not be
-- read at all.
ALTER TABLE intake_documents DROP CONSTRAINT intake_documents_flag_reason_check;
ALTER TABLE intake_documents ADD CONSTRAINT intake_documents_flag_reason_check
    CHECK (flag_reason IN ('duplicate', 'invalid_einvoice', 'extraction_failed', 'needs_manual_extraction'));

-- +goose Down
UPDATE intake_documents SET flag_reason = 'extraction_failed' WHERE flag_reason = 'invalid_einvoice';
ALTER TABLE intake_documents DROP CONSTRAINT intake_documents_flag_reason_check;
ALTER TABLE intake_documents ADD CONSTRAINT intake_documents_flag_reason_check
    CHECK (flag_reason IN ('duplicate', 'extraction_failed', 'needs_manual_extraction'));

-- +goose Up
-- A valid document every amount of which is zero is flagged nothing_to_post:
-- it is no invalid e-invoice, and a reviewer closes it in one step.
ALTER TABLE intake_documents DROP CONSTRAINT intake_documents_flag_reason_check;
ALTER TABLE intake_documents ADD CONSTRAINT intake_documents_flag_reason_check
    CHECK (flag_reason IN ('duplicate', 'invalid_einvoice', 'extraction_failed', 'needs_manual_extraction', 'not_an_invoice',
                           'nothing_to_post'));

-- +goose Down
UPDATE intake_documents SET flag_reason = 'invalid_einvoice' WHERE flag_reason = 'nothing_to_post';
ALTER TABLE intake_documents DROP CONSTRAINT intake_documents_flag_reason_check;
ALTER TABLE intake_documents ADD CONSTRAINT intake_documents_flag_reason_check
    CHECK (flag_reason IN ('duplicate', 'invalid_einvoice', 'extraction_failed', 'needs_manual_extraction', 'not_an_invoice'));

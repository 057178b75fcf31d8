-- +goose Up
-- The e-invoicing profile a document states (Factur-X MINIMUM, BASIC WL, ...,
-- XRechnung, Peppol, ZUGFeRD 1.0 BASIC / COMFORT / EXTENDED), next to its
-- syntax in format; served as the API's profile.
ALTER TABLE intake_documents ADD COLUMN profile text;
-- A document in an invoice syntax that is not an invoice (an Order-X order,
-- a despatch advice) is flagged not_an_invoice, saying what it is.
ALTER TABLE intake_documents DROP CONSTRAINT intake_documents_flag_reason_check;
ALTER TABLE intake_documents ADD CONSTRAINT intake_documents_flag_reason_check
    CHECK (flag_reason IN ('duplicate', 'invalid_einvoice', 'extraction_failed', 'needs_manual_extraction', 'not_an_invoice'));

-- +goose Down
UPDATE intake_documents SET flag_reason = 'extraction_failed' WHERE flag_reason = 'not_an_invoice';
ALTER TABLE intake_documents DROP CONSTRAINT intake_documents_flag_reason_check;
ALTER TABLE intake_documents ADD CONSTRAINT intake_documents_flag_reason_check
    CHECK (flag_reason IN ('duplicate', 'invalid_einvoice', 'extraction_failed', 'needs_manual_extraction'));
ALTER TABLE intake_documents DROP COLUMN profile;

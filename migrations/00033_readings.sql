-- +goose Up
-- A document read from its text whose key fields are not all certain is
-- flagged uncertain_reading: a person confirms or corrects what was read.
ALTER TABLE intake_documents DROP CONSTRAINT intake_documents_flag_reason_check;
ALTER TABLE intake_documents ADD CONSTRAINT intake_documents_flag_reason_check
    CHECK (flag_reason IN ('duplicate', 'invalid_einvoice', 'extraction_failed', 'needs_manual_extraction', 'not_an_invoice',
                           'nothing_to_post', 'uncertain_reading'));

-- What the text reading of a PDF or an image without e-invoice data found:
-- each field's value, confidence and place on the page, and the words it
-- read them from (kept so that a person's correction can teach the
-- supplier's layout). Written once, with the document's filing.
CREATE TABLE intake_readings (
    intake_id    bigint PRIMARY KEY REFERENCES intake_documents (id),
    org_id       bigint NOT NULL REFERENCES orgs (id),
    source       text NOT NULL CHECK (source IN ('text_layer', 'ocr', 'mixed')),
    fields       jsonb NOT NULL CHECK (jsonb_typeof(fields) = 'object'),
    uncertain    text[] NOT NULL DEFAULT '{}',
    supplier_key text NOT NULL DEFAULT '',
    layout_id    bigint,
    words        jsonb NOT NULL CHECK (jsonb_typeof(words) = 'object'),
    pages        integer NOT NULL CHECK (pages >= 0),
    read_at      timestamptz NOT NULL DEFAULT now()
);

-- A supplier's layout: where its invoices carry each field, learned from
-- the last reading a person confirmed or corrected. One per supplier; an
-- admin sees and resets them.
CREATE TABLE supplier_layouts (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id        bigint NOT NULL REFERENCES orgs (id),
    supplier_key  text NOT NULL CHECK (supplier_key <> ''),
    supplier_name text NOT NULL DEFAULT '',
    layout        jsonb NOT NULL CHECK (jsonb_typeof(layout) = 'object'),
    learned_from  bigint REFERENCES intake_documents (id),
    learned_by    text NOT NULL DEFAULT '',
    learned_at    timestamptz NOT NULL DEFAULT now(),
    uses          integer NOT NULL DEFAULT 0,
    UNIQUE (org_id, supplier_key)
);

-- +goose Down
DROP TABLE supplier_layouts;
DROP TABLE intake_readings;
UPDATE intake_documents SET flag_reason = 'needs_manual_extraction' WHERE flag_reason = 'uncertain_reading';
ALTER TABLE intake_documents DROP CONSTRAINT intake_documents_flag_reason_check;
ALTER TABLE intake_documents ADD CONSTRAINT intake_documents_flag_reason_check
    CHECK (flag_reason IN ('duplicate', 'invalid_einvoice', 'extraction_failed', 'needs_manual_extraction', 'not_an_invoice',
                           'nothing_to_post'));

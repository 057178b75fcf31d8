-- +goose Up
-- A document's payment, as its API and page show it, is its latest item
-- (or the item its credit note was netted in), whatever the item's status.
CREATE INDEX payment_items_intake ON payment_items (intake_id, id);
CREATE INDEX payment_items_credit_note ON payment_items (credit_note_id, id) WHERE credit_note_id IS NOT NULL;

-- +goose Down
DROP INDEX payment_items_credit_note;
DROP INDEX payment_items_intake;

-- +goose Up
-- The org's postal address as a buyer, for the AP check that an invoice is
-- addressed to this org when neither the VAT id nor the name decide it
-- (empty: not set). The country is an ISO 3166-1 alpha-2 code.
ALTER TABLE orgs
    ADD COLUMN address_lines text[] NOT NULL DEFAULT '{}'
        CHECK (cardinality(address_lines) <= 3 AND length(array_to_string(address_lines, '')) <= 600),
    ADD COLUMN city text NOT NULL DEFAULT '' CHECK (length(city) <= 100),
    ADD COLUMN postcode text NOT NULL DEFAULT '' CHECK (length(postcode) <= 20),
    ADD COLUMN country text NOT NULL DEFAULT '' CHECK (country = '' OR country ~ '^[A-Z]{2}$');

-- +goose Down
ALTER TABLE orgs DROP COLUMN country, DROP COLUMN postcode, DROP COLUMN city, DROP COLUMN address_lines;

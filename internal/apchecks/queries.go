package apchecks

// The bank-account check's SQL, sent through a database.Executor; the other
// checks are pure functions and read nothing.

// previousAccountsSQL reads the payee accounts of a supplier's posted
// invoices filed before this one, newest first. The supplier is the part of
// source_ref before the first '/', the bookkeeper's supplier key (VAT id,
// else endpoint id, else legal id, else name; '/' is escaped inside it),
// looked up through intake_approved_supplier_idx (posted is approved),
// newest first, past the supplier's few approved documents not posted yet.
const previousAccountsSQL = `
	SELECT id, fields ->> 'payee_iban'
	FROM intake_documents
	WHERE org_id = $1 AND status = 'posted' AND doc_type = 'invoice' AND id < $2
	  AND split_part(source_ref, '/', 1) = $3
	  AND coalesce(fields ->> 'payee_iban', '') <> ''
	ORDER BY id DESC
	LIMIT $4`

// previousAccountsManySQL is previousAccountsSQL for many documents at once,
// each with its supplier: one index scan per document, one round trip.
const previousAccountsManySQL = `
	SELECT p.doc, x.id, x.iban
	FROM unnest($2::bigint[], $3::text[]) AS p (doc, supplier)
	CROSS JOIN LATERAL (
		SELECT id, fields ->> 'payee_iban' AS iban
		FROM intake_documents
		WHERE org_id = $1 AND status = 'posted' AND doc_type = 'invoice' AND id < p.doc
		  AND split_part(source_ref, '/', 1) = p.supplier
		  AND coalesce(fields ->> 'payee_iban', '') <> ''
		ORDER BY id DESC
		LIMIT $4) x
	ORDER BY p.doc, x.id DESC`

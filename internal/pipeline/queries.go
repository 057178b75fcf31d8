package pipeline

// The statements of the pipeline. Its document rows are intake's (intake's
// statements write and read them) and its runs the runs engine's: the one
// statement of its own creates a run in the batch that ingests its row.

// runOfArrivalSQL creates the run ($1) of the row an ingest statement has
// just written with it in the same transaction, with the initial state $4
// naming the row: nothing when the bytes had arrived before (the row holds
// another run). The row is found by its arrival's unique (content hash,
// org).
const runOfArrivalSQL = `INSERT INTO runs (id, org_id, kind, subject_id, next_node, data)
SELECT $1::uuid, d.org_id, $2, d.id, $3, jsonb_set($4::jsonb, '{document_id}', to_jsonb(d.id))
FROM intake_documents d WHERE d.content_hash = $5 AND d.org_id = $6 AND d.pipeline_run_id = $1::uuid`

package main

// The demo's own SQL (greatbook demo, make run): reads that keep
// loading the demo data idempotent. Everything else the commands do goes
// through the domain packages.
const (
	// orgHasDocumentsSQL says whether an org has filed any document.
	orgHasDocumentsSQL = `SELECT EXISTS (SELECT 1 FROM intake_documents WHERE org_id = $1)`

	// documentByNumberSQL is an org's first document of a number.
	documentByNumberSQL = `SELECT id, status FROM intake_documents WHERE org_id = $1 AND doc_number = $2 ORDER BY id LIMIT 1`

	// orgHasApprovalPolicySQL says whether an org ever set its approval
	// policy (the default has no row).
	orgHasApprovalPolicySQL = `SELECT EXISTS (SELECT 1 FROM approval_policies WHERE org_id = $1)`
)

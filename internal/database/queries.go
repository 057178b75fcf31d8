package database

// The session-mode check's SQL (CheckSessionMode). The transaction helpers
// send their own BEGIN, COMMIT and savepoints (pipelined.go); migrations
// are goose's.
const (
	// markSessionSQL sets a session variable to a token and returns the
	// backend's pid.
	markSessionSQL = "SELECT pg_backend_pid(), set_config('greatbook.session_check', $1, false)"

	backendPIDSQL = "SELECT pg_backend_pid()"

	// readSessionMarkSQL returns the backend's pid and the session
	// variable markSessionSQL set, if this session has it.
	readSessionMarkSQL = "SELECT pg_backend_pid(), current_setting('greatbook.session_check', true)"
)

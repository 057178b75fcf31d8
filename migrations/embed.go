// Package migrations holds the SQL schema of greatbook as goose migrations,
// embedded in the binary.
package migrations

import "embed"

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS

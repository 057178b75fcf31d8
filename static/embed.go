// Package static holds the stylesheet, the script and the pinned htmx
// (2.0.11, from the npm registry), embedded in the binary. No CDN.
package static

import "embed"

// FS holds the static files.
//
//go:embed htmx.min.js app.css app.js
var FS embed.FS

// Package static holds the stylesheet, the script, the pinned htmx
// (2.0.11, from the npm registry) and the icon, embedded in the binary. No CDN.
package static

import "embed"

// FS holds the static files.
//
//go:embed htmx.min.js app.css app.js favicon.ico
var FS embed.FS

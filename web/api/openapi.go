package api

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPIDocument is the OpenAPI 3.1 description of every /api/v1 route. It
// is a static file rather than generated from the handlers: the handlers
// build their JSON from maps, so there are no types to reflect on, and a
// file an integrator can read and diff is the contract itself. The tests
// keep it honest: every registered route must be described, and every
// response the API tests receive must validate against it.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPIDocument returns the API's OpenAPI 3.1 description.
func OpenAPIDocument() []byte { return openAPIDocument }

// OpenAPI is GET /api/v1/openapi.json: the API's own description, served
// without a token so that tools can read it before they hold one.
func (h *Handlers) OpenAPI(c echo.Context) error {
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDocument)
}

// Package api is the JSON API under /api/v1: handlers that read a JSON (or
// document) body and the query, call one domain function and answer with
// JSON. web wires the routes and the bearer-token guard; failures go to the
// error handler of web/httpkit, which answers /api/ paths in the error
// envelope. openapi.json here is the API's contract.
package api

import "greatbook/web/httpkit"

// Handlers answers the API's routes over the shared services.
type Handlers struct {
	*httpkit.Base
}

// New returns the API's handlers over base.
func New(base *httpkit.Base) *Handlers { return &Handlers{Base: base} }

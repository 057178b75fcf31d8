package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/web/httpkit"
)

// MaxJSONBody bounds JSON request bodies other than document uploads (web
// limits the bodies of the API's other routes to it).
const MaxJSONBody = 1 << 20

// decodeJSON reads a JSON body strictly: unknown fields and trailing data
// are refused with 422 naming what was wrong, so a typo never passes silently.
func decodeJSON(c echo.Context, dst any) error {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, MaxJSONBody+1))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		// web's bound on the route's body (limitBodies) ended the read: a 413.
		return httpkit.Classify(err)
	}
	if err != nil {
		return apperr.Wrap(err, apperr.Invalid, "could not read the request body")
	}
	if len(body) > MaxJSONBody {
		return apperr.New(apperr.TooLarge, "the request body is larger than %d bytes", MaxJSONBody)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return apperr.New(apperr.Invalid, "the body must be one JSON object")
	}
	return nil
}

// decodeOptionalJSON is decodeJSON for a body that may be left out: an empty
// (or all-whitespace) body leaves dst as it is.
func decodeOptionalJSON(c echo.Context, dst any) error {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, MaxJSONBody+1))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return httpkit.Classify(err)
	}
	if err != nil {
		return apperr.Wrap(err, apperr.Invalid, "could not read the request body")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	c.Request().Body = io.NopCloser(bytes.NewReader(body))
	return decodeJSON(c, dst)
}

// jsonError explains a decoding error in terms of the request's fields.
func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if typeErr.Value == "number" && typeErr.Type.Kind().String() == "string" {
			return invalidField(field, "must be a decimal string such as \"100.00\", not a JSON number")
		}
		return invalidField(field, fmt.Sprintf("must be %s, not a JSON %s", kindName(typeErr.Type.Kind().String()), typeErr.Value))
	case errors.As(err, &syntaxErr):
		return apperr.New(apperr.Invalid, "the body is not valid JSON (at byte %d)", syntaxErr.Offset)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return invalidField(name, "is not a known field")
	case errors.Is(err, io.EOF):
		return apperr.New(apperr.Invalid, "the body is empty; a JSON object is expected")
	}
	return apperr.Wrap(err, apperr.Invalid, "the body is not valid JSON")
}

func invalidField(field, msg string) error {
	return apperr.New(apperr.Invalid, "%s %s", field, msg).
		With("reasons", []map[string]string{{"field": field, "message": msg}})
}

func kindName(k string) string {
	switch k {
	case "string":
		return "a string"
	case "int64", "int", "int32":
		return "an integer"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	}
	return "a " + k
}

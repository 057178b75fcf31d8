package web

import (
	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// Echo exposes the router so tests can add routes that fail on purpose.
func (s *Server) Echo() *echo.Echo { return s.echo }

// Page renders a component as every page handler does, so a test can
// render one that fails.
func Page(c echo.Context, comp templ.Component) error { return page(c, comp) }

// Routes lists the routes the server registered.
func (s *Server) Routes() []*echo.Route { return s.echo.Routes() }

package web

import (
	"github.com/labstack/echo/v4"
)

// Echo exposes the router so tests can add routes that fail on purpose.
func (s *Server) Echo() *echo.Echo { return s.echo }

// Routes lists the routes the server registered.
func (s *Server) Routes() []*echo.Route { return s.echo.Routes() }

package ui

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/views"
	"greatbook/web/httpkit"
)

// SignInForm shows the form. An anonymous visitor's form is protected by a
// token in a cookie of its own (SessionStore.AnonymousCSRF): showing it
// writes no session row.
func (h *Handlers) SignInForm(c echo.Context) error {
	next := httpkit.LocalPath(c.QueryParam("next"))
	if httpkit.CurrentUser(c) != nil {
		return c.Redirect(http.StatusSeeOther, next)
	}
	ch, err := h.signInChrome(c)
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.SignInPage(ch, views.SignInProps{Next: next}))
}

// signInChrome is the sign-in page's chrome with the form's CSRF token: the
// session's when it has one, else the visitor's anonymous token.
func (h *Handlers) signInChrome(c echo.Context) (views.Chrome, error) {
	ch := h.Chrome(c, "Sign in", "")
	if ch.CSRF != "" {
		return ch, nil
	}
	token, err := h.Sessions.AnonymousCSRF(c.Response(), c.Request())
	if err != nil {
		return ch, err
	}
	ch.CSRF = token
	return ch, nil
}

// SignIn checks the credentials and starts a new session.
func (h *Handlers) SignIn(c echo.Context) error {
	ctx := c.Request().Context()
	email, password := c.FormValue("email"), c.FormValue("password")
	next := httpkit.LocalPath(c.FormValue("next"))
	u, err := h.Auth.Authenticate(ctx, email, password)
	if err != nil {
		e, ok := apperr.As(err)
		if !ok || (e.Code != apperr.Unauthorized && e.Code != apperr.RateLimited) {
			return err
		}
		ch, err := h.signInChrome(c)
		if err != nil {
			return err
		}
		return httpkit.Render(c, httpkit.Status(e.Code), views.SignInPage(ch, views.SignInProps{Email: email, Next: next, Error: e.Message}))
	}
	sess := httpkit.Session(c)
	// A new session at sign-in: whatever token the browser had is worthless now.
	if err := h.Sessions.Renew(ctx, sess); err != nil {
		return err
	}
	if err := auth.SetSessionUser(sess, u.ID); err != nil {
		return err
	}
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	h.Sessions.ClearAnonymousCSRF(c.Response())
	return c.Redirect(http.StatusSeeOther, next)
}

// SignOut deletes the session row, so every copy of the cookie stops working.
func (h *Handlers) SignOut(c echo.Context) error {
	sess := httpkit.Session(c)
	if u := httpkit.CurrentUser(c); u != nil {
		if err := audit.Record(c.Request().Context(), h.Pool, audit.Event{OrgID: u.OrgID, Actor: u.Actor(),
			Action: "signout", SubjectType: "user", SubjectID: u.ID}); err != nil {
			return err
		}
	}
	sess.Options.MaxAge = -1
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/signin")
}

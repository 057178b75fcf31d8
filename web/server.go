// Package web is the HTTP face of greatbook: Echo wiring, middleware and
// handlers. Handlers parse the request, call one domain function and render;
// they hold no SQL.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"greatbook/internal/app"
	"greatbook/internal/auth"
	"greatbook/internal/database"
	"greatbook/internal/intake"
	"greatbook/static"
	"greatbook/views"
	"greatbook/web/api"
	"greatbook/web/httpkit"
)

// Options configure the server.
type Options struct {
	Logger *slog.Logger
	// Secure says the site is served over TLS (directly or behind a proxy):
	// cookies become Secure and __Host- prefixed.
	Secure bool
	// BehindProxy says a reverse proxy serves the site: requests arriving
	// from loopback are not this machine's own (no /metrics without an
	// admin's credentials).
	BehindProxy bool
	// MaxUploadBytes limits uploaded documents (default 20 MiB).
	MaxUploadBytes int64
}

// Server holds the domain services the handlers call.
type Server struct {
	echo     *echo.Echo
	app      *app.App
	pool     database.Executor
	auth     *auth.Service
	sessions *auth.SessionStore
	logger   *slog.Logger
	opts     Options
	base     *httpkit.Base
	api      *api.Handlers
}

// New builds the server and its routes over the assembled services.
func New(a *app.App, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxUploadBytes == 0 {
		opts.MaxUploadBytes = 20 << 20
	}
	base := httpkit.NewBase(a, opts.Logger, opts.Secure)
	s := &Server{
		app:      a,
		pool:     base.Pool,
		auth:     base.Auth,
		sessions: base.Sessions,
		logger:   opts.Logger,
		opts:     opts,
		base:     base,
		api:      api.New(base),
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = base.HandleError
	e.Use(middleware.RequestID())
	e.Use(s.logRequests)
	e.Use(s.limitBodies)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, DisablePrintStack: false,
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			s.logger.Error("panic", "request_id", c.Response().Header().Get(echo.HeaderXRequestID), "error", err, "stack", string(stack))
			return err
		}}))
	e.Use(middleware.SecureWithConfig(middleware.SecureConfig{
		XSSProtection: "0", ContentTypeNosniff: "nosniff", XFrameOptions: "SAMEORIGIN",
		ReferrerPolicy: "same-origin",
		ContentSecurityPolicy: "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
			"object-src 'self'; frame-src 'self'; frame-ancestors 'self'; form-action 'self'; base-uri 'none'",
	}))
	s.echo = e
	s.routes()
	return s
}

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler { return s.echo }

// Auth returns the sign-in service (for tests and the CLI).
func (s *Server) Auth() *auth.Service { return s.auth }

// Sessions returns the session store (for tests).
func (s *Server) Sessions() *auth.SessionStore { return s.sessions }

func (s *Server) routes() {
	e := s.echo
	e.GET("/healthz", s.health)
	e.GET("/static/*", echo.WrapHandler(http.StripPrefix("/static/", staticFiles())))
	// Where browsers look for the icon, outside the session's routes: a
	// fetch the browser cuts short loads no session.
	e.GET("/favicon.ico", echo.WrapHandler(staticFiles()))

	// The API's own description, outside the token-guarded group: a client
	// reads it before it has a token.
	e.GET("/api/v1/openapi.json", s.api.OpenAPI)

	v1 := e.Group("/api/v1", s.base.BearerAuth)
	v1.GET("/me", s.api.Me)
	v1.GET("/users/:id", s.api.User)
	v1.GET("/accounts", s.api.Accounts)
	v1.POST("/documents", s.api.UploadDocument)
	v1.GET("/intake/:id", s.api.GetIntake)
	v1.POST("/intake/:id/approve", s.api.Approve)
	v1.POST("/intake/:id/reject", s.api.Reject)
	v1.POST("/intake/:id/close-nothing-to-post", s.api.CloseNothingToPost)
	v1.POST("/intake/:id/not-a-duplicate", s.api.NotADuplicate, httpkit.RequireAdmin)
	v1.POST("/jobs/:id/retry", s.api.RetryJob, httpkit.RequireAdmin)
	v1.GET("/questions", s.api.Questions)
	v1.POST("/typewriter/documents", s.api.Compose)
	v1.POST("/typewriter/documents/:id/versions", s.api.Revise)
	v1.GET("/typewriter/versions/:id/pdf", s.api.VersionPDF)
	v1.POST("/typewriter/versions/:id/submit", s.api.SubmitVersion)
	v1.POST("/runs/:id/answer", s.api.Answer)
	v1.POST("/journal-entries", s.api.PostEntry)
	v1.GET("/journal-entries", s.api.ListEntries)
	v1.GET("/journal-entries/:id", s.api.GetEntry)
	v1.POST("/journal-entries/:id/reverse", s.api.ReverseEntry)
	// The event feed, and the keyset-paginated listing.
	v1.GET("/events", s.api.Events)
	v1.GET("/intake", s.api.ListIntake)

	// Browser routes: a session, CSRF on every state change, sign-in where needed.
	b := e.Group("", s.base.LoadSession, s.base.CheckCSRF)
	b.GET("/signin", s.signInForm)
	b.POST("/signin", s.signIn)
	b.POST("/signout", s.signOut)
	b.GET("/metrics", s.metrics)

	u := b.Group("", httpkit.RequireUser, httpkit.RequireOrgMember)
	b.GET("/", func(c echo.Context) error {
		if u := httpkit.CurrentUser(c); u != nil && u.IsOperator() {
			return c.Redirect(http.StatusSeeOther, "/admin/runs")
		}
		return c.Redirect(http.StatusSeeOther, "/desk")
	}, httpkit.RequireUser)
	u.GET("/desk", s.desk)
	u.GET("/desk/tabs", s.deskTabs)
	u.GET("/upload", s.uploadPage)
	u.POST("/upload", s.upload)
	u.GET("/upload/documents/:id", s.uploadOutcome)
	u.GET("/intake/:id", s.documentPage)
	u.GET("/intake/:id/original", s.original)
	u.GET("/intake/:id/type-in", s.typeInForm)
	u.POST("/intake/:id/type-in", s.typeIn)
	u.GET("/intake/:id/decision", s.decisionPanel)
	u.GET("/intake/:id/compare", s.compare)
	u.GET("/intake/:id/group", s.groupSection)
	u.GET("/intake/:id/chain", s.chainSection)
	u.GET("/intake/:id/watch", s.watch)
	u.POST("/intake/:id/approve", s.approve)
	u.POST("/intake/:id/reject", s.reject)
	u.POST("/intake/:id/close-nothing-to-post", s.closeNothingToPost)
	u.POST("/intake/:id/answer", s.answer)
	u.POST("/desk/questions/:run/answer", s.answerOnDesk)
	u.POST("/intake/:id/not-a-duplicate", s.notADuplicate, httpkit.RequireAdmin)
	u.POST("/jobs/:id/retry", s.retryJob, httpkit.RequireAdmin)

	// The operators' pages.
	// The runs and dead letters: an org admin sees their own org's, an
	// instance operator every org's.
	ops := b.Group("/admin", httpkit.RequireUser, httpkit.RequireAdminOrOperator)
	ops.GET("/dead-letters", s.deadLetters)
	ops.POST("/dead-letters/retry", s.bulkRetry)
	ops.POST("/dead-letters/retry-selected", s.retrySelected)
	ops.GET("/dead-letters/bulk-runs", s.bulkRetryProgress)
	ops.GET("/jobs/:id", s.jobPage)
	ops.POST("/jobs/:id/retry", s.adminRetry)
	ops.GET("/runs", s.runsPage)
	ops.GET("/runs/:id", s.runPage)
	ops.POST("/runs/:id/retry", s.runRetry)
	ops.POST("/runs/:id/abandon", s.runAbandon)
	adm := u.Group("/admin", httpkit.RequireAdmin)
	adm.GET("/supplier-rules", s.supplierRules)
	adm.POST("/supplier-rules/change", s.changeSupplierRule)
	adm.POST("/supplier-rules/forget", s.forgetSupplierRule)
	adm.GET("/org", s.orgSettings)
	adm.POST("/org", s.saveOrgSettings)
	// Org settings beyond the identity: the default expense account, the
	// base currency and the remembered exchange rates.
	adm.POST("/org/default-account", s.setDefaultExpenseAccount)
	adm.POST("/org/base-currency", s.setBaseCurrency)
	adm.POST("/org/rates/change", s.changeExchangeRate)
	adm.POST("/org/rates/forget", s.forgetExchangeRate)
	// Webhook endpoints, and retries of their dead deliveries.
	adm.GET("/webhooks", s.webhooksPage)
	adm.POST("/webhooks", s.registerWebhook)
	adm.POST("/webhooks/:id/disable", s.disableWebhook)
	adm.POST("/dead-letters/webhooks/retry", s.webhookBulkRetry)
	adm.POST("/webhook-deliveries/:id/retry", s.webhookRetry)
	u.GET("/typewriter", s.typewriterList)
	u.GET("/typewriter/new", s.composeForm)
	u.POST("/typewriter", s.compose)
	u.POST("/typewriter/preview", s.preview)
	u.GET("/typewriter/:id", s.typewriterPage)
	u.GET("/typewriter/:id/diff", s.typewriterDiff)
	u.GET("/typewriter/:id/revise", s.reviseForm)
	u.POST("/typewriter/:id/revise", s.revise)
	u.POST("/typewriter/versions/:id/submit", s.submitVersion)
	u.GET("/typewriter/versions/:id/pdf", s.versionPDF)
	u.GET("/ledger/source-keys", s.sourceKeys)
	u.GET("/ledger", s.ledgerPage)
	u.GET("/ledger/entries/:id", s.entryPage)
	u.POST("/ledger/entries/:id/reverse", s.reverseEntry)
	u.GET("/ledger/trial-balance", s.trialBalancePage)
}

// staticFiles serves the embedded assets with a short cache lifetime.
func staticFiles() http.Handler {
	fs := http.FileServerFS(static.FS)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=300")
		fs.ServeHTTP(w, r)
	})
}

// health answers 200 when the database answers, else 503.
func (s *Server) health(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.app.Pool.Ping(ctx); err != nil {
		s.logger.Warn("health check: database does not answer", "error", err)
		c.Response().Header().Set("Retry-After", httpkit.RetryAfter)
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) desk(c echo.Context) error {
	ctx := c.Request().Context()
	u := httpkit.CurrentUser(c)
	p, err := intake.Queue(ctx, s.pool, u.OrgID, queueFilter(c.QueryParams()))
	if err != nil {
		return err
	}
	qs, err := s.app.Bookkeeper.DeskQuestions(ctx, u.OrgID)
	if err != nil {
		return err
	}
	return httpkit.Page(c, views.DeskPage(s.base.Chrome(c, "Desk", "desk"), views.DeskProps{Page: p, Questions: qs}))
}

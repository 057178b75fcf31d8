// Package web is the HTTP face of greatbook: the Echo server, its
// middleware and every route, over the JSON API's handlers (web/api) and
// the browser's pages (web/ui, web/ui/payui for paying suppliers and
// web/ui/readui for the text reading's page images and learned layouts),
// which all stand on web/httpkit.
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
	"greatbook/static"
	"greatbook/web/api"
	"greatbook/web/httpkit"
	"greatbook/web/ui"
	"greatbook/web/ui/payui"
	"greatbook/web/ui/readui"
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
}

// Server is the Echo router with the middleware and every route, over the
// API's and the pages' handlers.
type Server struct {
	echo   *echo.Echo
	base   *httpkit.Base
	api    *api.Handlers
	ui     *ui.Handlers
	payui  *payui.Handlers
	readui *readui.Handlers
	opts   Options
}

// New builds the server and its routes over the assembled services.
func New(a *app.App, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	base := httpkit.NewBase(a, opts.Logger, opts.Secure)
	s := &Server{base: base, api: api.New(base), ui: ui.New(base), payui: payui.New(base), readui: readui.New(base), opts: opts}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = base.HandleError
	e.Use(middleware.RequestID())
	e.Use(s.logRequests)
	e.Use(s.limitBodies)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, DisablePrintStack: false,
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			s.base.Logger.Error("panic", "request_id", c.Response().Header().Get(echo.HeaderXRequestID), "error", err, "stack", string(stack))
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
func (s *Server) Auth() *auth.Service { return s.base.Auth }

// Sessions returns the session store (for tests).
func (s *Server) Sessions() *auth.SessionStore { return s.base.Sessions }

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
	// The chart an org's documents are coded to: accounts and dimensions.
	v1.POST("/accounts", s.api.CreateAccount, httpkit.RequireAdmin)
	v1.GET("/dimensions", s.api.Dimensions)
	v1.PUT("/dimensions/:name", s.api.PutDimension, httpkit.RequireAdmin)
	v1.GET("/approval-policy", s.api.ApprovalPolicy)
	v1.PUT("/approval-policy", s.api.SetApprovalPolicy, httpkit.RequireAdmin)
	v1.POST("/documents", s.api.UploadDocument)
	v1.GET("/intake/:id", s.api.GetIntake)
	v1.GET("/intake/:id/reading", s.api.Reading)
	v1.GET("/layouts", s.api.Layouts, httpkit.RequireAdmin)
	v1.DELETE("/layouts", s.api.ResetLayouts, httpkit.RequireAdmin)
	v1.DELETE("/layouts/:id", s.api.ForgetLayout, httpkit.RequireAdmin)
	v1.PUT("/intake/:id/coding", s.api.SetCoding, httpkit.RequireOrgMember)
	v1.POST("/intake/:id/approve", s.api.Approve)
	v1.POST("/intake/:id/reject", s.api.Reject)
	v1.POST("/intake/:id/close-nothing-to-post", s.api.CloseNothingToPost)
	v1.POST("/intake/:id/not-a-duplicate", s.api.NotADuplicate, httpkit.RequireAdmin)
	v1.POST("/jobs/:id/retry", s.api.RetryJob, httpkit.RequireAdmin)
	v1.POST("/payment-runs", s.api.ProposePaymentRun, httpkit.RequireAdmin)
	v1.GET("/payment-runs", s.api.PaymentRuns, httpkit.RequireAdmin)
	v1.GET("/payment-runs/:id", s.api.PaymentRun, httpkit.RequireAdmin)
	v1.POST("/payment-runs/:id/approve", s.api.ApprovePaymentRun, httpkit.RequireAdmin)
	v1.POST("/payment-runs/:id/cancel", s.api.CancelPaymentRun, httpkit.RequireAdmin)
	v1.DELETE("/payment-runs/:id/items/:item_id", s.api.RemovePaymentItem, httpkit.RequireAdmin)
	v1.GET("/payment-runs/:id/pain.001", s.base.PaymentFile, httpkit.RequireAdmin)
	v1.POST("/intake/:id/payment-account/confirm", s.api.ConfirmPaymentAccount, httpkit.RequireAdmin)
	v1.POST("/bank-statements", s.api.ImportBankStatement, httpkit.RequireAdmin)
	v1.GET("/bank-statements/:id", s.api.BankStatement, httpkit.RequireAdmin)
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
	b.GET("/signin", s.ui.SignInForm)
	b.POST("/signin", s.ui.SignIn)
	b.POST("/signout", s.ui.SignOut)
	b.GET("/metrics", s.metrics)

	u := b.Group("", httpkit.RequireUser, httpkit.RequireOrgMember)
	b.GET("/", s.ui.Home, httpkit.RequireUser)
	u.GET("/desk", s.ui.Desk)
	u.GET("/desk/tabs", s.ui.DeskTabs)
	u.GET("/upload", s.ui.UploadPage)
	u.POST("/upload", s.ui.Upload)
	u.GET("/upload/documents/:id", s.ui.UploadOutcome)
	u.GET("/intake/:id", s.ui.DocumentPage)
	u.GET("/intake/:id/original", s.ui.Original)
	u.GET("/intake/:id/pages/:n", s.readui.PageImage)
	u.GET("/intake/:id/type-in", s.ui.TypeInForm)
	u.POST("/intake/:id/type-in", s.ui.TypeIn)
	u.GET("/intake/:id/decision", s.ui.DecisionPanel)
	u.GET("/intake/:id/compare", s.ui.Compare)
	u.GET("/intake/:id/group", s.ui.GroupSection)
	u.GET("/intake/:id/chain", s.ui.ChainSection)
	u.GET("/intake/:id/watch", s.ui.Watch)
	u.POST("/intake/:id/approve", s.ui.Approve)
	u.POST("/intake/:id/reject", s.ui.Reject)
	u.POST("/intake/:id/close-nothing-to-post", s.ui.CloseNothingToPost)
	u.POST("/intake/:id/answer", s.ui.Answer)
	u.POST("/intake/:id/coding", s.ui.SaveCoding)
	u.POST("/desk/questions/:run/answer", s.ui.AnswerOnDesk)
	u.POST("/intake/:id/not-a-duplicate", s.ui.NotADuplicate, httpkit.RequireAdmin)
	u.POST("/jobs/:id/retry", s.ui.RetryJob, httpkit.RequireAdmin)

	// The operators' pages.
	// The runs and dead letters: an org admin sees their own org's, an
	// instance operator every org's.
	ops := b.Group("/admin", httpkit.RequireUser, httpkit.RequireAdminOrOperator)
	ops.GET("/dead-letters", s.ui.DeadLetters)
	ops.POST("/dead-letters/retry", s.ui.BulkRetry)
	ops.POST("/dead-letters/retry-selected", s.ui.RetrySelected)
	ops.GET("/dead-letters/bulk-runs", s.ui.BulkRetryProgress)
	ops.GET("/jobs/:id", s.ui.JobPage)
	ops.POST("/jobs/:id/retry", s.ui.AdminRetry)
	ops.GET("/runs", s.ui.RunsPage)
	ops.GET("/runs/:id", s.ui.RunPage)
	ops.POST("/runs/:id/retry", s.ui.RunRetry)
	ops.POST("/runs/:id/abandon", s.ui.RunAbandon)
	adm := u.Group("/admin", httpkit.RequireAdmin)
	adm.GET("/supplier-rules", s.ui.SupplierRules)
	adm.POST("/supplier-rules/change", s.ui.ChangeSupplierRule)
	adm.POST("/supplier-rules/forget", s.ui.ForgetSupplierRule)
	// The suppliers' layouts learned from confirmed readings.
	adm.GET("/layouts", s.readui.LayoutsPage)
	adm.POST("/layouts/:id/forget", s.readui.ForgetLayout)
	adm.POST("/layouts/reset", s.readui.ResetLayouts)
	// The chart: accounts and dimensions, and their CSV imports.
	adm.GET("/accounts", s.ui.AccountsPage)
	adm.POST("/accounts", s.ui.CreateAccount)
	adm.POST("/accounts/active", s.ui.SetAccountActive)
	adm.POST("/accounts/import", s.ui.ImportAccounts)
	adm.GET("/dimensions", s.ui.DimensionsPage)
	adm.POST("/dimensions", s.ui.CreateDimension)
	adm.POST("/dimensions/import", s.ui.ImportValues)
	adm.POST("/dimensions/:name/values", s.ui.SetValue)
	adm.GET("/org", s.ui.OrgSettings)
	adm.POST("/org", s.ui.SaveOrgSettings)
	// Org settings beyond the identity: the default expense account, the
	// base currency, the bank account, the remembered exchange rates and the
	// approval policy.
	adm.POST("/org/default-account", s.ui.SetDefaultExpenseAccount)
	adm.POST("/org/base-currency", s.ui.SetBaseCurrency)
	adm.POST("/org/bank-account", s.ui.SetBankAccount)
	adm.POST("/org/rates/change", s.ui.ChangeExchangeRate)
	adm.POST("/org/rates/forget", s.ui.ForgetExchangeRate)
	adm.POST("/org/approval-policy", s.ui.SaveApprovalPolicy)
	// Webhook endpoints, and retries of their dead deliveries.
	adm.GET("/webhooks", s.ui.WebhooksPage)
	adm.POST("/webhooks", s.ui.RegisterWebhook)
	adm.POST("/webhooks/:id/disable", s.ui.DisableWebhook)
	adm.POST("/dead-letters/webhooks/retry", s.ui.WebhookBulkRetry)
	adm.POST("/webhook-deliveries/:id/retry", s.ui.WebhookRetry)
	// Pay runs: proposed, approved, downloaded as a pain.001 file or
	// cancelled, and the four-eyes confirmation of a supplier's account.
	pay := u.Group("/payment-runs", httpkit.RequireAdmin)
	pay.GET("", s.payui.PaymentRunsPage)
	pay.POST("", s.payui.ProposePaymentRun)
	pay.GET("/:id", s.payui.PaymentRunPage)
	pay.POST("/:id/approve", s.payui.ApprovePaymentRun)
	pay.POST("/:id/cancel", s.payui.CancelPaymentRun)
	pay.POST("/:id/items/:item/remove", s.payui.RemovePaymentItem)
	pay.POST("/:id/confirm", s.payui.ConfirmPaymentAccount)
	pay.GET("/:id/pain.001", s.base.PaymentFile)
	u.GET("/desk/due", s.payui.DuePage)
	// Bank statements: their upload, and each import's lines that matched
	// no payment.
	u.GET("/bank-statements", s.payui.BankStatementsPage, httpkit.RequireAdmin)
	u.POST("/bank-statements", s.payui.ImportBankStatement, httpkit.RequireAdmin)
	u.GET("/bank-statements/:id", s.payui.BankStatementPage, httpkit.RequireAdmin)
	u.GET("/typewriter", s.ui.TypewriterList)
	u.GET("/typewriter/new", s.ui.ComposeForm)
	u.POST("/typewriter", s.ui.Compose)
	u.POST("/typewriter/preview", s.ui.Preview)
	u.GET("/typewriter/:id", s.ui.TypewriterPage)
	u.GET("/typewriter/:id/diff", s.ui.TypewriterDiff)
	u.GET("/typewriter/:id/revise", s.ui.ReviseForm)
	u.POST("/typewriter/:id/revise", s.ui.Revise)
	u.POST("/typewriter/versions/:id/submit", s.ui.SubmitVersion)
	u.GET("/typewriter/versions/:id/pdf", s.ui.VersionPDF)
	u.GET("/ledger/source-keys", s.ui.SourceKeys)
	u.GET("/ledger", s.ui.LedgerPage)
	u.GET("/ledger/entries/:id", s.ui.EntryPage)
	u.POST("/ledger/entries/:id/reverse", s.ui.ReverseEntry)
	u.GET("/ledger/trial-balance", s.ui.TrialBalancePage)
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
	if err := s.base.App.Pool.Ping(ctx); err != nil {
		s.base.Logger.Warn("health check: database does not answer", "error", err)
		c.Response().Header().Set("Retry-After", httpkit.RetryAfter)
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

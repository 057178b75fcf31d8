package web_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"greatbook/internal/auth"
	"greatbook/internal/runs"
	"greatbook/internal/testkit"
	"greatbook/internal/testkit/browser"
	"greatbook/web/webtest"
)

// An org's admin sees only their org's counts (runs and dead letters); an
// instance operator sees every org's, with an org column and an org filter,
// and no desk.
func TestBrowserOperatorSeesEveryOrgAdminOnlyTheirs(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	ctx := context.Background()
	acme := testkit.OrgWith(t, a.DB, "acme", "EUR")
	globex := testkit.OrgWith(t, a.DB, "globex", "EUR")
	admin := testkit.User(t, a.DB, acme, auth.RoleAdmin)
	webtest.SeedDeadLetter(t, a, acme, "A-1")
	webtest.SeedDeadLetter(t, a, globex, "G-1")
	webtest.SeedDeadLetter(t, a, globex, "G-2")
	for _, orgID := range []int64{acme.ID, globex.ID, globex.ID} {
		if _, err := a.DB.Pool.Exec(ctx, `INSERT INTO runs (id, org_id, kind, subject_id, state, next_node, data, finished_at)
			VALUES ($1, $2, 'pipeline', 0, 'done', NULL, '{}', now())`, runs.NewID(), orgID); err != nil {
			t.Fatal(err)
		}
	}
	svc := auth.NewService(a.DB.Pool)
	svc.Password = testkit.FastPasswords
	op, err := svc.CreateUser(ctx, 0, "olga@ops.test", auth.RoleOperator, testkit.TestPassword)
	webtest.Must(t, err)

	// The admin of acme: one dead letter, one run, no org column.
	p := browser.NewPage(t, a.URL)
	_, err = p.Goto("/signin")
	webtest.Must(t, err)
	signInWith(t, p, admin.Email, testkit.TestPassword)
	webtest.Must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk$`)))
	_, err = p.Goto("/admin/dead-letters")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("dead-letter")).ToHaveCount(1))
	webtest.Must(t, expect.Locator(p.GetByTestId("dead-letter-org")).ToHaveCount(0))
	webtest.Must(t, expect.Locator(p.GetByTestId("nav-dead-letters")).ToContainText("1"))
	_, err = p.Goto("/admin/runs")
	webtest.Must(t, err)
	webtest.Must(t, expect.Locator(p.GetByTestId("run-count-all")).ToContainText("1"))
	webtest.Must(t, expect.Locator(p.GetByTestId("run-org")).ToHaveCount(0))

	// The operator: sent to the runs, every org's, named; the dead letters
	// of both orgs, narrowed to one by the org filter; no desk.
	q := browser.NewPage(t, a.URL)
	_, err = q.Goto("/signin")
	webtest.Must(t, err)
	signInWith(t, q, op.Email, testkit.TestPassword)
	webtest.Must(t, expect.Page(q).ToHaveURL(regexp.MustCompile(`/admin/runs$`)))
	webtest.Must(t, expect.Locator(q.GetByTestId("current-user")).ToContainText("every org"))
	webtest.Must(t, expect.Locator(q.GetByTestId("run-count-all")).ToContainText("3"))
	webtest.Must(t, expect.Locator(q.GetByTestId("run-org")).ToHaveCount(3))
	webtest.Must(t, expect.Locator(q.GetByRole("navigation", playwright.PageGetByRoleOptions{Name: "Main"}).GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Desk"})).ToHaveCount(0))
	webtest.Must(t, q.GetByTestId("nav-dead-letters").Click())
	webtest.Must(t, expect.Locator(q.GetByTestId("dead-letter")).ToHaveCount(3))
	webtest.Must(t, expect.Locator(q.GetByTestId("dead-letter-org").Filter(playwright.LocatorFilterOptions{HasText: globex.Slug})).ToHaveCount(2))
	webtest.Must(t, q.GetByTestId("org-filter").Fill(globex.Slug))
	webtest.Must(t, q.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Filter"}).Click())
	webtest.Must(t, expect.Locator(q.GetByTestId("dead-letter")).ToHaveCount(2))
	webtest.Must(t, expect.Locator(q.GetByTestId("dead-letter-org").Filter(playwright.LocatorFilterOptions{HasText: acme.Slug})).ToHaveCount(0))
}

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
)

// An org's admin sees only their org's counts (runs and dead letters); an
// instance operator sees every org's, with an org column and an org filter,
// and no desk.
func TestBrowserOperatorSeesEveryOrgAdminOnlyTheirs(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	ctx := context.Background()
	acme := testkit.OrgWith(t, a.db, "acme", "EUR")
	globex := testkit.OrgWith(t, a.db, "globex", "EUR")
	admin := testkit.User(t, a.db, acme, auth.RoleAdmin)
	seedDeadLetter(t, a, acme, "A-1")
	seedDeadLetter(t, a, globex, "G-1")
	seedDeadLetter(t, a, globex, "G-2")
	for _, orgID := range []int64{acme.ID, globex.ID, globex.ID} {
		if _, err := a.db.Pool.Exec(ctx, `INSERT INTO runs (id, org_id, kind, subject_id, state, next_node, data, finished_at)
			VALUES ($1, $2, 'pipeline', 0, 'done', NULL, '{}', now())`, runs.NewID(), orgID); err != nil {
			t.Fatal(err)
		}
	}
	svc := auth.NewService(a.db.Pool)
	svc.Password = testkit.FastPasswords
	op, err := svc.CreateUser(ctx, 0, "olga@ops.test", auth.RoleOperator, testkit.TestPassword)
	must(t, err)

	// The admin of acme: one dead letter, one run, no org column.
	p := browser.NewPage(t, a.URL)
	_, err = p.Goto("/signin")
	must(t, err)
	signInWith(t, p, admin.Email, testkit.TestPassword)
	must(t, expect.Page(p).ToHaveURL(regexp.MustCompile(`/desk$`)))
	_, err = p.Goto("/admin/dead-letters")
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("dead-letter")).ToHaveCount(1))
	must(t, expect.Locator(p.GetByTestId("dead-letter-org")).ToHaveCount(0))
	must(t, expect.Locator(p.GetByTestId("nav-dead-letters")).ToContainText("1"))
	_, err = p.Goto("/admin/runs")
	must(t, err)
	must(t, expect.Locator(p.GetByTestId("run-count-all")).ToContainText("1"))
	must(t, expect.Locator(p.GetByTestId("run-org")).ToHaveCount(0))

	// The operator: sent to the runs, every org's, named; the dead letters
	// of both orgs, narrowed to one by the org filter; no desk.
	q := browser.NewPage(t, a.URL)
	_, err = q.Goto("/signin")
	must(t, err)
	signInWith(t, q, op.Email, testkit.TestPassword)
	must(t, expect.Page(q).ToHaveURL(regexp.MustCompile(`/admin/runs$`)))
	must(t, expect.Locator(q.GetByTestId("current-user")).ToContainText("every org"))
	must(t, expect.Locator(q.GetByTestId("run-count-all")).ToContainText("3"))
	must(t, expect.Locator(q.GetByTestId("run-org")).ToHaveCount(3))
	must(t, expect.Locator(q.GetByRole("navigation", playwright.PageGetByRoleOptions{Name: "Main"}).GetByRole("link", playwright.LocatorGetByRoleOptions{Name: "Desk"})).ToHaveCount(0))
	must(t, q.GetByTestId("nav-dead-letters").Click())
	must(t, expect.Locator(q.GetByTestId("dead-letter")).ToHaveCount(3))
	must(t, expect.Locator(q.GetByTestId("dead-letter-org").Filter(playwright.LocatorFilterOptions{HasText: globex.Slug})).ToHaveCount(2))
	must(t, q.GetByTestId("org-filter").Fill(globex.Slug))
	must(t, q.GetByRole("button", playwright.PageGetByRoleOptions{Name: "Filter"}).Click())
	must(t, expect.Locator(q.GetByTestId("dead-letter")).ToHaveCount(2))
	must(t, expect.Locator(q.GetByTestId("dead-letter-org").Filter(playwright.LocatorFilterOptions{HasText: acme.Slug})).ToHaveCount(0))
}

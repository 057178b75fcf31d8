package views_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"greatbook/internal/auth"
	"greatbook/views"
)

// The nav's dead-letter badge counts up to DeadLetterBadgeMax and says
// "99+" from there on; with none it is not shown.
func TestTheDeadLetterBadgeStopsCountingAtItsMax(t *testing.T) {
	t.Parallel()
	admin := &auth.User{Email: "admin@example.test", Role: auth.RoleAdmin}
	for n, want := range map[int]string{0: "", 1: "1", views.DeadLetterBadgeMax - 1: "99", views.DeadLetterBadgeMax: "99+"} {
		var b bytes.Buffer
		if err := views.Layout(views.Chrome{Title: "t", User: admin, DeadLetters: n}).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		d, err := goquery.NewDocumentFromReader(&b)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(d.Find("[data-testid=nav-dead-letter-count]").Text()), "waiting for an operator"))
		if got != want {
			t.Errorf("%d dead letters: badge %q, want %q", n, got, want)
		}
	}
}

package main

import (
	"context"
	"fmt"

	"greatbook/internal/auth"
	"greatbook/internal/embeddedpg"
	"greatbook/internal/org"
)

// The demo sign-in details. They are printed by `greatbook demo` and
// `make run`; the demo data lives only in the local embedded database.
const (
	demoOrg           = "demo"
	demoReviewer      = "reviewer@demo.test"
	demoAdmin         = "admin@demo.test"
	demoPassword      = "greatbook-demo"
	demoOtherOrg      = "other"
	demoOtherReviewer = "reviewer@other.test"
)

func (e env) demo(ctx context.Context, args []string) error {
	var f dbFlags
	fs := e.newFlagSet("demo", &f)
	if _, err := parse(fs, args); err != nil {
		return err
	}
	d, err := e.openDatabase(ctx, f, embeddedpg.RoleClient, e.cliLogger())
	if err != nil {
		return err
	}
	defer d.Close()
	if err := loadDemo(ctx, d); err != nil {
		return err
	}
	printDemoSignIn(e, "")
	return nil
}

// loadDemo creates the demo orgs, users and documents; re-running changes nothing.
func loadDemo(ctx context.Context, d *db) error {
	o, _, err := org.Create(ctx, d.pool, demoOrg, "Demo Trading AB", "EUR", orgSeeders()...)
	if err != nil {
		return fmt.Errorf("demo org: %w", err)
	}
	other, _, err := org.Create(ctx, d.pool, demoOtherOrg, "Other Company Ltd", "GBP", orgSeeders()...)
	if err != nil {
		return fmt.Errorf("demo org: %w", err)
	}
	svc := auth.NewService(d.pool)
	for _, u := range []struct {
		org   int64
		email string
		role  auth.Role
	}{{o.ID, demoReviewer, auth.RoleReviewer}, {o.ID, demoAdmin, auth.RoleAdmin}, {other.ID, demoOtherReviewer, auth.RoleReviewer}} {
		if _, err := svc.CreateUser(ctx, u.org, u.email, u.role, demoPassword); err != nil {
			return fmt.Errorf("demo user %s: %w", u.email, err)
		}
	}
	return nil
}

func printDemoSignIn(e env, url string) {
	if url != "" {
		fmt.Fprintf(e.stdout, "GreatBook Intake is serving on %s\n", url)
	}
	fmt.Fprintf(e.stdout, "Demo sign-in (org %q):\n", demoOrg)
	fmt.Fprintf(e.stdout, "  reviewer: %s / %s\n", demoReviewer, demoPassword)
	fmt.Fprintf(e.stdout, "  admin:    %s / %s\n", demoAdmin, demoPassword)
}

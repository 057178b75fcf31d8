package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"greatbook/internal/audit"
	"greatbook/internal/auth"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
)

func (e env) migrate(ctx context.Context, args []string) error {
	d, err := e.openWithoutFlags(ctx, "migrate", args)
	if err != nil {
		return err
	}
	defer d.Close()
	fmt.Fprintln(e.stdout, "migrations applied")
	return nil
}

func (e env) orgAdd(ctx context.Context, args []string) error {
	c := e.subcommand("org add")
	name := c.flags.String("name", "", "display name")
	currency := c.flags.String("currency", "EUR", "base currency (ISO 4217)")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *name == "" {
		return errors.New("usage: greatbook org add SLUG --name NAME [--currency EUR]")
	}
	d, err := c.open(ctx, e.cliLogger())
	if err != nil {
		return err
	}
	defer d.Close()
	o, created, err := org.Create(ctx, d.pool, pos[0], *name, *currency, orgSeeders()...)
	if err != nil {
		return errors.New(message(err))
	}
	verb := "created"
	if !created {
		verb = "exists"
	}
	fmt.Fprintf(e.stdout, "org %s %s (id %d, base currency %s)\n", o.Slug, verb, o.ID, o.BaseCurrency)
	return nil
}

// orgSet sets the org's identity as a buyer and the age of an old invoice;
// a flag left out keeps its value, an empty one clears it.
func (e env) orgSet(ctx context.Context, args []string) error {
	c := e.subcommand("org set")
	legalName := c.flags.String("legal-name", "", "the org's legal name as suppliers write it")
	vatID := c.flags.String("vat-id", "", "the org's VAT id")
	maxAge := c.flags.Int("max-issue-age-months", 0, "warn of invoices issued longer ago than this (1-120)")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New("usage: greatbook org set SLUG [--legal-name NAME] [--vat-id ID] [--max-issue-age-months 18]")
	}
	d, err := c.open(ctx, e.cliLogger())
	if err != nil {
		return err
	}
	defer d.Close()
	o, err := org.BySlug(ctx, d.pool, pos[0])
	if err != nil {
		return errors.New(message(err))
	}
	id := o.Identity
	c.flags.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "legal-name":
			id.LegalName = *legalName
		case "vat-id":
			id.VATID = *vatID
		case "max-issue-age-months":
			id.MaxIssueAgeMonths = *maxAge
			if *maxAge == 0 {
				id.MaxIssueAgeMonths = -1 // zero is out of bounds here, not "the default"
			}
		}
	})
	if o, err = org.SetIdentity(ctx, d.pool, o.ID, id, audit.System("cli")); err != nil {
		return errors.New(message(err))
	}
	fmt.Fprintf(e.stdout, "org %s: legal name %q, VAT id %q, invoices older than %d months warn\n",
		o.Slug, o.Identity.LegalName, o.Identity.VATID, o.Identity.MaxIssueAgeMonths)
	return nil
}

func (e env) userAdd(ctx context.Context, args []string) error {
	c := e.subcommand("user add")
	orgSlug := c.flags.String("org", "", "org slug (none for an operator)")
	email := c.flags.String("email", "", "email address")
	role := c.flags.String("role", "", "reviewer, admin or operator")
	fromStdin := c.flags.Bool("password-stdin", false, "read the password from standard input")
	if _, err := c.parse(args); err != nil {
		return err
	}
	const usage = "usage: greatbook user add --org SLUG --email EMAIL --role reviewer|admin --password-stdin" +
		" (an operator: --role operator --email EMAIL --password-stdin, no --org)"
	operator := auth.Role(*role) == auth.RoleOperator
	switch {
	case *email == "" || *role == "" || !*fromStdin:
		return errors.New(usage)
	case operator && *orgSlug != "":
		return errors.New("an operator belongs to no org: leave out --org; " + usage)
	case !operator && *orgSlug == "":
		return errors.New("a reviewer or an admin belongs to an org: give --org SLUG; " + usage)
	}
	password, err := readPassword(e.stdin)
	if err != nil {
		return err
	}
	d, err := c.open(ctx, e.cliLogger())
	if err != nil {
		return err
	}
	defer d.Close()
	var o org.Org
	if !operator {
		if o, err = org.BySlug(ctx, d.pool, *orgSlug); err != nil {
			return errors.New(message(err))
		}
	}
	u, err := auth.NewService(d.pool).CreateUser(ctx, o.ID, *email, auth.Role(*role), password)
	if err != nil {
		return errors.New(message(err))
	}
	if operator {
		fmt.Fprintf(e.stdout, "user %s (operator of every org)\n", u.Email)
		return nil
	}
	fmt.Fprintf(e.stdout, "user %s (%s) in org %s\n", u.Email, u.Role, o.Slug)
	return nil
}

func (e env) tokenAdd(ctx context.Context, args []string) error {
	c := e.subcommand("token add")
	orgSlug := c.flags.String("org", "", "org slug")
	email := c.flags.String("email", "", "email address")
	if _, err := c.parse(args); err != nil {
		return err
	}
	if *orgSlug == "" || *email == "" {
		return errors.New("usage: greatbook token add --org SLUG --email EMAIL")
	}
	d, err := c.open(ctx, e.cliLogger())
	if err != nil {
		return err
	}
	defer d.Close()
	svc := auth.NewService(d.pool)
	u, err := svc.UserByEmail(ctx, *email)
	if err != nil || u.OrgSlug != *orgSlug {
		return fmt.Errorf("no user %s in org %s", *email, *orgSlug)
	}
	token, err := svc.CreateAPIToken(ctx, u.ID)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, token)
	return nil
}

// orgSeeders prepare what a new org needs (its chart of accounts).
func orgSeeders() []org.Seeder { return []org.Seeder{ledger.SeedDefaultChart} }

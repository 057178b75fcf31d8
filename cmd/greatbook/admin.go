package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

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

// orgSetUsage is how org set is called.
const orgSetUsage = `usage: greatbook org set SLUG [--legal-name NAME] [--vat-id ID] [--address-line LINE]... [--city CITY]
       [--postcode CODE] [--country CC] [--max-issue-age-months 18] [--base-currency EUR] [--default-expense-account CODE]
       [--bank-iban IBAN] [--bank-bic BIC]`

// orgSet sets the org's identity as a buyer (name, VAT id, postal address),
// the age of an old invoice, its base currency and its default expense
// account, and its own bank account; a flag left out keeps its value, an
// empty one clears it. Each
// kind of setting is its own audited change: the base currency first, as
// the one refused by the state of the books (while entries exist).
func (e env) orgSet(ctx context.Context, args []string) error {
	c := e.subcommand("org set")
	legalName := c.flags.String("legal-name", "", "the org's legal name as suppliers write it")
	vatID := c.flags.String("vat-id", "", "the org's VAT id")
	var lines []string
	c.flags.Func("address-line", "a line of the org's postal address (repeat for up to 3; one empty value clears them)", func(v string) error {
		lines = append(lines, v)
		return nil
	})
	city := c.flags.String("city", "", "the city of the org's postal address")
	postcode := c.flags.String("postcode", "", "the postcode of the org's postal address")
	country := c.flags.String("country", "", "the country of the org's postal address (ISO 3166 code, DE)")
	maxAge := c.flags.Int("max-issue-age-months", 0, "warn of invoices issued longer ago than this (1-120)")
	baseCurrency := c.flags.String("base-currency", "", "the base currency (ISO 4217); only while the ledger is empty")
	defaultAccount := c.flags.String("default-expense-account", "", "code of the active expense account a bill goes to when no rule says otherwise")
	bankIBAN := c.flags.String("bank-iban", "", "the IBAN of the org's own bank account, the debtor of its payment files (empty clears it)")
	bankBIC := c.flags.String("bank-bic", "", "the BIC of the org's bank")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New(orgSetUsage)
	}
	d, o, err := c.openOrg(ctx, e.cliLogger(), pos[0])
	if err != nil {
		return err
	}
	defer d.Close()
	id := o.Identity
	var setIdentity, setCurrency, setAccount, setBank, setBIC bool
	iban, bic := o.BankIBAN, o.BankBIC
	c.flags.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "legal-name":
			id.LegalName = *legalName
		case "vat-id":
			id.VATID = *vatID
		case "address-line":
			id.Address.Lines = lines
		case "city":
			id.Address.City = *city
		case "postcode":
			id.Address.Postcode = *postcode
		case "country":
			id.Address.Country = *country
		case "max-issue-age-months":
			id.MaxIssueAgeMonths = *maxAge
			if *maxAge == 0 {
				id.MaxIssueAgeMonths = -1 // zero is out of bounds here, not "the default"
			}
		case "base-currency":
			setCurrency = true
			return
		case "default-expense-account":
			setAccount = true
			return
		case "bank-iban":
			iban, setBank = *bankIBAN, true
			return
		case "bank-bic":
			bic, setBank, setBIC = *bankBIC, true, true
			return
		}
		setIdentity = true
	})
	by := audit.System("cli")
	if setCurrency {
		if o, err = org.SetBaseCurrency(ctx, d.pool, o.ID, *baseCurrency, by); err != nil {
			return errors.New(message(err))
		}
		fmt.Fprintf(e.stdout, "org %s: base currency %s\n", o.Slug, o.BaseCurrency)
	}
	if setAccount {
		if o, err = org.SetDefaultExpenseAccount(ctx, d.pool, o.ID, *defaultAccount, by); err != nil {
			return errors.New(message(err))
		}
		account := o.DefaultExpenseAccount
		if account == "" {
			account = "none (the bookkeeper asks)"
		}
		fmt.Fprintf(e.stdout, "org %s: default expense account %s\n", o.Slug, account)
	}
	if setBank {
		if iban == "" && !setBIC {
			bic = "" // clearing the account clears its bank, which names nothing without it
		}
		if o, err = org.SetBankAccount(ctx, d.pool, o.ID, iban, bic, by); err != nil {
			return errors.New(message(err))
		}
		account := "none"
		if o.BankIBAN != "" {
			account = o.BankIBAN
			if o.BankBIC != "" {
				account += " (BIC " + o.BankBIC + ")"
			}
		}
		fmt.Fprintf(e.stdout, "org %s: bank account %s\n", o.Slug, account)
	}
	if setIdentity || (!setCurrency && !setAccount && !setBank) {
		if o, err = org.SetIdentity(ctx, d.pool, o.ID, id, by); err != nil {
			return errors.New(message(err))
		}
		fmt.Fprintf(e.stdout, "org %s: legal name %q, VAT id %q, invoices older than %d months warn\n",
			o.Slug, o.Identity.LegalName, o.Identity.VATID, o.Identity.MaxIssueAgeMonths)
		if a := o.Identity.Address; !a.IsZero() {
			fmt.Fprintf(e.stdout, "org %s: address %q, %q %q, %s\n", o.Slug, strings.Join(a.Lines, "; "), a.Postcode, a.City, a.Country)
		}
	}
	return nil
}

// orgPolicyUsage is how org policy is called.
const orgPolicyUsage = `usage: greatbook org policy SLUG [--separate-submitter[=false]] [--rule MIN=N]... (without flags: print the policy)`

// orgPolicy prints the org's approval policy, after setting it when a flag
// is given: --separate-submitter alone keeps the rules, and the --rule
// flags, in the order of their amounts, replace them all. The policy is
// validated and audited as the API's PUT is.
func (e env) orgPolicy(ctx context.Context, args []string) error {
	c := e.subcommand("org policy")
	separate := c.flags.Bool("separate-submitter", false, "whoever submitted a document may not approve it")
	var rules []org.ApprovalRule
	c.flags.Func("rule", "MIN=N: a document of at least MIN in the base currency needs N approvals (repeat; the first MIN is 0)", func(v string) error {
		rule, err := parseApprovalRule(v)
		if err != nil {
			return err
		}
		rules = append(rules, rule)
		return nil
	})
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return errors.New(orgPolicyUsage)
	}
	d, o, err := c.openOrg(ctx, e.cliLogger(), pos[0])
	if err != nil {
		return err
	}
	defer d.Close()
	policy, err := org.ApprovalPolicyOf(ctx, d.pool, o.ID)
	if err != nil {
		return err
	}
	var set bool
	c.flags.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "separate-submitter":
			policy.SeparateSubmitter, set = *separate, true
		case "rule":
			policy.Rules, set = rules, true
		}
	})
	if set {
		if policy, err = org.SetApprovalPolicy(ctx, d.pool, o.ID, policy, audit.System("cli")); err != nil {
			return errors.New(message(err))
		}
	}
	fmt.Fprintf(e.stdout, "org %s: separate submitter %t\n", o.Slug, policy.SeparateSubmitter)
	for _, r := range policy.Rules {
		noun := "approvals"
		if r.Approvals == 1 {
			noun = "approval"
		}
		fmt.Fprintf(e.stdout, "org %s: from %s %s, %d %s\n", o.Slug, r.MinAmount, o.BaseCurrency, r.Approvals, noun)
	}
	return nil
}

// parseApprovalRule reads a rule written MIN=N (1000.00=2); the policy's
// check judges the values.
func parseApprovalRule(v string) (org.ApprovalRule, error) {
	amount, n, ok := strings.Cut(v, "=")
	approvals, err := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err != nil || strings.TrimSpace(amount) == "" {
		return org.ApprovalRule{}, fmt.Errorf("want MIN=N, such as 1000.00=2 (N approvals from the amount MIN), not %q", v)
	}
	return org.ApprovalRule{MinAmount: strings.TrimSpace(amount), Approvals: approvals}, nil
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

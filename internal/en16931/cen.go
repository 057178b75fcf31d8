package en16931

import (
	"bytes"
	"embed"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"greatbook/internal/en16931/xpath"
)

// cenFiles are CEN's compiled validators, unchanged (EUPL 1.2, cen/LICENSE-EUPL-1.2.txt): the product
// evaluates the rules in them itself, and the tests run them with Saxon as the reference.
//
//go:embed cen/EN16931-UBL-validation.xslt cen/EN16931-CII-validation.xslt
var cenFiles embed.FS

// assertion is one rule of a compiled validator: fails where test does not hold in its template's
// context.
type assertion struct {
	id, flag, text string
	test           *xpath.Expr
}

// template is one rule context of a phase: the nodes its pattern matches and the assertions judged there.
type template struct {
	pattern    *xpath.Expr
	priority   int
	assertions []assertion
}

// phase is one pattern of the schematron (model, syntax, codes): a node is judged by at most one of its
// templates, the one of highest priority whose pattern matches it, as XSLT applies templates.
type phase struct {
	mode      string
	templates []template // by priority, highest first
}

// ruleSet is a whole compiled validator.
type cenRules struct {
	phases []phase
	texts  map[string]string // rule id → official text
	flags  map[string]string // rule id → official flag
}

var (
	cenOnce  sync.Once
	cenSets  map[string]*cenRules
	cenError error
)

// cenRuleSets loads both validators once.
func cenRuleSets() (map[string]*cenRules, error) {
	cenOnce.Do(func() {
		cenSets = map[string]*cenRules{}
		for syntax, file := range map[string]string{"ubl": "cen/EN16931-UBL-validation.xslt", "cii": "cen/EN16931-CII-validation.xslt"} {
			data, err := cenFiles.ReadFile(file)
			if err == nil {
				cenSets[syntax], err = loadCEN(data)
			}
			if err != nil {
				cenError = fmt.Errorf("en16931: load %s: %w", file, err)
				return
			}
		}
	})
	return cenSets, cenError
}

var modeName = regexp.MustCompile(`^M[0-9]+$`)

// loadCEN reads the templates and assertions of a schematron compiled to XSLT by the ISO skeleton.
func loadCEN(data []byte) (*cenRules, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	ns := map[string]string{}
	rules := &cenRules{texts: map[string]string{}, flags: map[string]string{}}
	phases := map[string]*phase{}
	var order []string
	var cur *template
	var curMode string
	var test string
	var inAssert bool
	var attrName string
	var a assertion
	var text strings.Builder
	var inText bool
	attr := func(t xml.StartElement, name string) string {
		for _, at := range t.Attr {
			if at.Name.Space == "" && at.Name.Local == name {
				return at.Value
			}
		}
		return ""
	}
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Space + ":" + t.Name.Local
			switch {
			case name == "xsl:stylesheet":
				for _, at := range t.Attr {
					if at.Name.Space == "xmlns" {
						ns[at.Name.Local] = at.Value
					}
				}
			case name == "xsl:template" && modeName.MatchString(attr(t, "mode")):
				prio, err := strconv.Atoi(attr(t, "priority"))
				if err != nil || prio < 0 {
					cur = nil // the built-in recursion of the phase
					continue
				}
				pattern := attr(t, "match")
				if !strings.HasPrefix(pattern, "/") {
					pattern = "//" + strings.ReplaceAll(pattern, " | ", " | //")
				}
				e, err := xpath.Compile(pattern, ns)
				if err != nil {
					return nil, err
				}
				cur, curMode = &template{pattern: e, priority: prio}, attr(t, "mode")
			case cur != nil && name == "xsl:when":
				test = attr(t, "test")
			case cur != nil && name == "svrl:failed-assert":
				inAssert, a = true, assertion{}
				e, err := xpath.Compile(test, ns)
				if err != nil {
					return nil, err
				}
				a.test = e
			case inAssert && name == "xsl:attribute":
				attrName = attr(t, "name")
				text.Reset()
			case inAssert && name == "svrl:text":
				inText = true
				text.Reset()
			}
		case xml.CharData:
			if attrName != "" || inText {
				text.Write(t)
			}
		case xml.EndElement:
			name := t.Name.Space + ":" + t.Name.Local
			switch {
			case inAssert && name == "xsl:attribute":
				switch attrName {
				case "id":
					a.id = strings.TrimSpace(text.String())
				case "flag":
					a.flag = strings.TrimSpace(text.String())
				}
				attrName = ""
			case inAssert && name == "svrl:text":
				a.text = strings.Join(strings.Fields(text.String()), " ")
				inText = false
			case inAssert && name == "svrl:failed-assert":
				inAssert = false
				cur.assertions = append(cur.assertions, a)
				rules.texts[a.id], rules.flags[a.id] = a.text, a.flag
			case cur != nil && name == "xsl:template":
				p := phases[curMode]
				if p == nil {
					p = &phase{mode: curMode}
					phases[curMode] = p
					order = append(order, curMode)
				}
				p.templates = append(p.templates, *cur)
				cur = nil
			}
		}
	}
	slices.Sort(order)
	for _, m := range order {
		p := phases[m]
		slices.SortStableFunc(p.templates, func(a, b template) int { return b.priority - a.priority })
		rules.phases = append(rules.phases, *p)
	}
	return rules, nil
}

// failure is one assertion that does not hold, where.
type failure struct {
	a    *assertion
	node *xpath.Node
	err  error // the assertion could not be evaluated there
}

// judge runs every phase over the document: each node is judged by the first template (by priority)
// whose pattern matches it, and every assertion of that template that does not hold is a failure.
func (rs *cenRules) judge(run *xpath.Run, doc *xpath.Document) ([]failure, error) {
	var out []failure
	judged := make([]*xpath.Node, doc.Nodes)
	for pi := range rs.phases {
		p := &rs.phases[pi]
		// The template of highest priority each node matches, by the node's place in the document.
		chosen := make([]*template, doc.Nodes)
		for ti := range p.templates {
			t := &p.templates[ti]
			nodes, err := run.Eval(t.pattern, doc.Root)
			if err != nil {
				if err == xpath.ErrBudget {
					return nil, err
				}
				continue // a pattern the document makes fail matches nothing
			}
			for _, it := range nodes {
				if n, ok := it.(*xpath.Node); ok && chosen[n.Order()] == nil {
					chosen[n.Order()] = t
					judged[n.Order()] = n
				}
			}
		}
		err := run.Guard(func() {
			for i, t := range chosen {
				if t == nil {
					continue
				}
				n := judged[i]
				for ai := range t.assertions {
					a := &t.assertions[ai]
					if ok, err := run.TestUnguarded(a.test, n); err != nil || !ok {
						out = append(out, failure{a: a, node: n, err: err})
					}
				}
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// namespaces of the roots each syntax's validator judges.
var cenRoots = map[string][]xml.Name{
	"ubl": {{Space: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2", Local: "Invoice"},
		{Space: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2", Local: "CreditNote"}},
	"cii": {{Space: "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100", Local: "CrossIndustryInvoice"}},
}

// WorkPerNode is the evaluation budget per node of a document: the official rules look at each node a
// bounded number of times, except a few that compare every VAT breakdown with every line; a document that
// would need more than this is not judged (ErrTooLarge), so no document costs more than linear work.
const WorkPerNode = 500

// minimumWork is the budget of the smallest documents.
const minimumWork = 2_000_000

func validateCEN(syntax string, data []byte) ([]Violation, error) {
	sets, err := cenRuleSets()
	if err != nil {
		return nil, err
	}
	rules, ok := sets[syntax]
	if !ok {
		return nil, fmt.Errorf("en16931: unknown syntax %q", syntax)
	}
	doc, err := xpath.Parse(data, xpath.Limits{MaxDepth: MaxDepth, MaxElements: MaxElements})
	if err != nil {
		if err == xpath.ErrTooLarge {
			return nil, ErrTooLarge
		}
		return nil, fmt.Errorf("en16931: %w", err)
	}
	root := doc.Root.Children[0]
	if !slices.ContainsFunc(cenRoots[syntax], func(n xml.Name) bool { return n.Space == root.Space && n.Local == root.Local }) {
		return nil, fmt.Errorf("en16931: not a %s invoice: root element %s", strings.ToUpper(syntax), root.Name())
	}
	run := xpath.NewRun(doc, max(minimumWork, int64(doc.Nodes)*WorkPerNode))
	failures, err := rules.judge(run, doc)
	if err == xpath.ErrBudget {
		return nil, fmt.Errorf("%w: the official rules would need more than %d steps", ErrTooLarge, WorkPerNode)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Violation, 0, len(failures))
	for _, f := range failures {
		msg := f.a.text
		if f.err != nil {
			msg += " (the rule could not be evaluated here: " + f.err.Error() + ")"
		}
		out = append(out, Violation{Rule: f.a.id, Flag: f.a.flag, BusinessTerm: businessTerm(f.a.text), Field: fieldOf(f.node), Message: msg})
	}
	return out, nil
}

var termPattern = regexp.MustCompile(`\((B[TG]-[0-9]+)\)`)

// businessTerm is the first business term a rule's text names.
func businessTerm(text string) string {
	if m := termPattern.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return ""
}

// fieldOf says where in the invoice a node is, for people: a line, a VAT breakdown, or the path of
// element names below the root.
func fieldOf(n *xpath.Node) string {
	var names []string
	for m := n; m != nil && m.Kind != xpath.DocumentNode; m = m.Parent {
		switch m.Local {
		case "InvoiceLine", "CreditNoteLine", "IncludedSupplyChainTradeLineItem":
			return lineName(m)
		}
		if m.Parent != nil && m.Parent.Kind != xpath.DocumentNode {
			names = append([]string{m.Local}, names...)
		}
	}
	if len(names) == 0 {
		return "invoice"
	}
	return strings.Join(names, "/")
}

// lineName is "line " and the line's identifier, or its position.
func lineName(line *xpath.Node) string {
	for _, c := range line.Children {
		if c.Local == "ID" {
			if id := strings.TrimSpace(c.StringValue()); id != "" {
				return "line " + id
			}
		}
		if c.Local == "AssociatedDocumentLineDocument" {
			for _, d := range c.Children {
				if d.Local == "LineID" && strings.TrimSpace(d.StringValue()) != "" {
					return "line " + strings.TrimSpace(d.StringValue())
				}
			}
		}
	}
	pos := 0
	for _, s := range line.Parent.Children {
		if s.Local == line.Local {
			pos++
		}
		if s == line {
			break
		}
	}
	return fmt.Sprintf("line %d", pos)
}

package sql

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/suggest"
)

// The defaults and bounds of a sql block.
const (
	// DefaultMaxRows is how many rows a call returns when its block sets
	// no max_rows, and MaxMaxRows the largest max_rows.
	DefaultMaxRows = 100
	MaxMaxRows     = 10000
	// DefaultMaxOutput is how many bytes of JSON a call's rows may come
	// to when the block sets no max_output, and MaxMaxOutput its largest.
	DefaultMaxOutput = 1 << 20
	MaxMaxOutput     = 16 << 20
	// MaxArgs is the most bind arguments a statement may take.
	MaxArgs = 1000
)

var sqlBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "source", Required: true},
		{Name: "query", Required: true},
		{Name: "args"},
		{Name: "max_rows"},
		{Name: "max_output"},
		{Name: "single_row"},
		{Name: "read_only"},
	},
}

func init() {
	adapters.Register(adapters.Kind{
		Name:    "sql",
		Summary: "runs a parameterized SQL statement on a source (sqlite, postgres, mysql)",
		Compile: compileSQL,
		Keys:    []string{"query", "source"},
	})
}

// compileSQL compiles a sql block: the source it names, the statement
// (constant text: values go only in args), the args' count against the
// statement's placeholders, and the limits. It takes a reference to the
// source's pool without opening it.
func compileSQL(block *hcl.Block, cc *adapters.CompileContext) (adapters.Backend, hcl.Diagnostics) {
	content, diags := block.Body.Content(sqlBlockSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	b := &Backend{
		tool:      cc.ToolName,
		maxRows:   DefaultMaxRows,
		maxOutput: DefaultMaxOutput,
		readOnly:  true,
		sensitive: adapters.SensitiveNames(cc.Params),
		declRange: block.DefRange,
	}
	c := adapters.NewAttrs(cc)
	srcAttr := content.Attributes["source"]
	var name string
	if v, d, ok := c.Constant(srcAttr, `"main"`); ok && v.Type() == cty.String {
		name = v.AsString()
	} else {
		diags = append(diags, d...)
		if ok {
			diags = append(diags, attrDiag(srcAttr, "Invalid source", "source is the name of a source block, a string such as \"main\"."))
		}
	}
	if name != "" && cc.Sources == nil {
		return nil, append(diags, attrDiag(srcAttr, "sql outside a tool", "A sql block is a tool's backend; resources and resource templates cannot use one yet. Declare a tool with this sql block instead."))
	}
	if name != "" {
		b.src = cc.Sources[name]
		if b.src == nil {
			diags = append(diags, attrDiag(srcAttr, "Unknown source", unknownSource(name, cc.Sources)))
		}
	}
	if b.src != nil {
		b.d = dialects[b.src.Driver]
		if b.d == nil {
			return nil, append(diags, attrDiag(srcAttr, "Unknown driver", unknownDriver(b.src.Driver).Error()))
		}
	}
	for _, n := range []string{"max_rows", "max_output"} {
		a, ok := content.Attributes[n]
		if !ok {
			continue
		}
		if n == "max_output" {
			v, d, ok := c.ByteCount(a, MaxMaxOutput, "16 MiB")
			diags = append(diags, d...)
			if ok {
				b.maxOutput = v
			}
			continue
		}
		v, d := attr.Constant(a, c.Eval, cty.Number)
		diags = append(diags, d...)
		if !d.HasErrors() {
			n, d := attr.Count(a, v, MaxMaxRows, DefaultMaxRows)
			diags = append(diags, d...)
			b.maxRows = max(n, 1)
		}
	}
	if a, ok := content.Attributes["single_row"]; ok {
		diags = append(diags, c.Boolean(a, &b.singleRow, "single_row = true answers the first row as one object.")...)
	}
	if a, ok := content.Attributes["read_only"]; ok {
		diags = append(diags, c.Boolean(a, &b.readOnly, "read_only = false lets the statement write; its source must say read_only = false too.")...)
		if !b.readOnly && b.src != nil && b.src.ReadOnly {
			diags = append(diags, attrDiag(a, "Source is read-only", fmt.Sprintf("The tool writes (read_only = false), but its source %q is read-only, as sources are by default. Add read_only = false to the source block at %s if its tools may write, or remove read_only = false here.", b.src.Name, b.src.DeclRange)))
		}
	}
	diags = append(diags, b.compileQuery(content.Attributes["query"], &c)...)
	argsOK := true
	if a, ok := content.Attributes["args"]; ok {
		d := b.compileArgs(a, &c)
		diags = append(diags, d...)
		argsOK = !d.HasErrors()
	}
	if b.d != nil && b.query != "" && argsOK {
		diags = append(diags, b.checkPlaceholders(content.Attributes)...)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	b.pool = acquirePool(b.src, b.d, b.readOnly)
	return b, diags
}

// unknownSource is the detail of a sql block naming no declared source.
func unknownSource(name string, sources map[string]*adapters.Source) string {
	names := slices.Sorted(maps.Keys(sources))
	if len(names) == 0 {
		return fmt.Sprintf("No source block declares %q, and the config has none. Declare it at the top level: source %q { driver = \"sqlite\"  dsn = \"data.db\" }.", name, name)
	}
	return fmt.Sprintf("No source block declares %q; the config's sources are %s.%s", name, strings.Join(quoteAll(names), ", "), suggest.Hint(name, names))
}

// compileQuery reads the statement: constant text, in which a parameter
// may not appear (its value would become SQL).
func (b *Backend) compileQuery(a *hcl.Attribute, c *adapters.Attrs) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, tr := range a.Expr.Variables() {
		if tr.RootName() != "param" && tr.RootName() != "answer" {
			continue
		}
		ref := adapters.TraversalString(tr)
		example := "?"
		if b.d != nil {
			example = b.d.placeholderExample(1)
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Parameter in query",
			Detail: fmt.Sprintf("The query is fixed SQL: %s may not be written into it, where its value would become SQL (an injection). Write a placeholder (%s) in its place and pass the value as a bind argument: args = [%s].",
				ref, example, ref),
			Subject: tr.SourceRange().Ptr(),
		})
	}
	if diags.HasErrors() {
		return diags
	}
	v, d, ok := c.Constant(a, `"SELECT name FROM items WHERE id = ?"`)
	diags = append(diags, d...)
	if !ok {
		return diags
	}
	if v.Type() != cty.String || strings.TrimSpace(v.AsString()) == "" {
		return append(diags, attrDiag(a, "Invalid query", "query is the SQL statement, a non-empty string such as \"SELECT name FROM items WHERE id = ?\"."))
	}
	b.query = v.AsString()
	return diags
}

// compileArgs reads args: a list written out, [param.id, param.name],
// whose elements are evaluated at each call and sent as bind arguments.
func (b *Backend) compileArgs(a *hcl.Attribute, c *adapters.Attrs) hcl.Diagnostics {
	diags := c.Undeclared(a.Expr)
	if diags.HasErrors() {
		return diags
	}
	tuple, ok := a.Expr.(*hclsyntax.TupleConsExpr)
	if !ok {
		return append(diags, attrDiag(a, "Invalid args", "args is a list written out, one expression a placeholder in order, such as args = [param.id, param.name]: its length must be known when the config loads."))
	}
	if len(tuple.Exprs) > MaxArgs {
		return append(diags, attrDiag(a, "Too many args", fmt.Sprintf("A statement takes at most %d bind arguments; args has %d.", MaxArgs, len(tuple.Exprs))))
	}
	for _, e := range tuple.Exprs {
		_, d := e.Value(c.Eval)
		diags = append(diags, d...)
		b.args = append(b.args, e)
	}
	return diags
}

// checkPlaceholders compares the statement's placeholders with args.
func (b *Backend) checkPlaceholders(attrs hcl.Attributes) hcl.Diagnostics {
	q := attrs["query"]
	n, err := countPlaceholders(b.query, b.d.lex())
	if err != nil {
		return hcl.Diagnostics{attrDiag(q, "Unreadable query", fmt.Sprintf("The query cannot be read to its end: %s.", err))}
	}
	if n == len(b.args) {
		return nil
	}
	subject := q
	if a, ok := attrs["args"]; ok {
		subject = a
	}
	return hcl.Diagnostics{attrDiag(subject, "Placeholders and args differ", fmt.Sprintf("The query has %s (written %s for the %s driver), and args gives %s. Give one value in args for each placeholder, in order.",
		countOf(n, "placeholder"), b.d.placeholderExample(1), b.src.Driver, countOf(len(b.args), "value")))}
}

// attrDiag is an error about an attribute's value.
func attrDiag(a *hcl.Attribute, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: a.Expr.Range().Ptr()}
}

// countOf is "1 thing" or "n things".
func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// quoteAll quotes each name.
func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

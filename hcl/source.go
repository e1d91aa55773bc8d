package hcl

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/suggest"
)

// The defaults and bounds of a source block.
const (
	// DefaultMaxOpenConns is max_open_conns when a source sets none, and
	// MaxMaxOpenConns its largest value.
	DefaultMaxOpenConns = 10
	MaxMaxOpenConns     = 1000
	// DefaultStatementTimeout is statement_timeout when a source sets
	// none, and MaxStatementTimeout its largest value.
	DefaultStatementTimeout = 30 * time.Second
	MaxStatementTimeout     = 10 * time.Minute
)

// SourceDrivers are the drivers a source block may name.
var SourceDrivers = []string{"sqlite", "postgres", "mysql"}

// sourceBlockSchema is the schema of a source block.
var sourceBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "driver", Required: true},
		{Name: "dsn", Required: true},
		{Name: "max_open_conns"},
		{Name: "statement_timeout"},
		{Name: "read_only"},
	},
}

// decodeSources decodes the source blocks among jobs, before the tools
// that name them, and returns them by name. A name declared twice is
// reported at its second block.
func decodeSources(jobs []decodeJob, static *hcl.EvalContext) map[string]*adapters.Source {
	sources := map[string]*adapters.Source{}
	for i := range jobs {
		j := &jobs[i]
		if j.block.Type != "source" {
			continue
		}
		j.done = true
		s, d := decodeSource(j.block, static, j.baseDir)
		j.diags = d
		if prev, dup := sources[s.Name]; dup {
			j.diags = append(j.diags, duplicate("source", s.Name, j.block.LabelRanges[0], prev.DeclRange, "Source names are unique across the config's files: rename one."))
			continue
		}
		sources[s.Name] = s
	}
	return sources
}

// decodeSource decodes a source block; static evaluates its attributes,
// which are all constant (dsn is usually env("DATABASE_URL")).
func decodeSource(block *hcl.Block, static *hcl.EvalContext, baseDir string) (*adapters.Source, hcl.Diagnostics) {
	content, diags := block.Body.Content(sourceBlockSchema)
	s := &adapters.Source{
		Name:             block.Labels[0],
		MaxOpenConns:     DefaultMaxOpenConns,
		StatementTimeout: DefaultStatementTimeout,
		ReadOnly:         true,
		DeclRange:        block.DefRange,
	}
	diags = append(diags, stringAttr(content.Attributes, "driver", static, &s.Driver)...)
	if a, ok := content.Attributes["driver"]; ok && s.Driver != "" && !slices.Contains(SourceDrivers, s.Driver) {
		diags = append(diags, rangeDiag(a, "Unknown driver", fmt.Sprintf("A source's driver is one of %s; %q is none of them.%s", strings.Join(SourceDrivers, ", "), s.Driver, suggest.Hint(s.Driver, SourceDrivers))))
	}
	if a, ok := content.Attributes["dsn"]; ok {
		s.DSNRange = a.Expr.Range()
		v, d := attr.Constant(a, static, cty.String)
		// The value may hold a password: the diagnostics of a dsn never
		// quote it (attr.Constant's quote only its type).
		diags = append(diags, d...)
		if !d.HasErrors() {
			s.DSN = v.AsString()
			if strings.TrimSpace(s.DSN) == "" {
				diags = append(diags, rangeDiag(a, "Empty dsn", "The dsn of a source says where the database is: a file path for sqlite, a URL such as env(\"DATABASE_URL\") for postgres and mysql. It is empty; if it comes from env(), set that variable."))
			}
		}
	}
	if s.Driver == "sqlite" && s.DSN != "" {
		s.DSN = sqlitePath(s.DSN, baseDir)
	}
	if a, ok := content.Attributes["max_open_conns"]; ok {
		v, d := attr.Constant(a, static, cty.Number)
		diags = append(diags, d...)
		if !d.HasErrors() {
			n, d := attr.Count(a, v, MaxMaxOpenConns, DefaultMaxOpenConns)
			diags = append(diags, d...)
			if !d.HasErrors() {
				s.MaxOpenConns = n
			}
		}
	}
	diags = append(diags, durationAttr(content.Attributes, "statement_timeout", static, attr.DurationRange{
		Min: time.Millisecond, Max: MaxStatementTimeout, Example: `"30s"`, Examples: `"30s", "500ms" or "2m"`,
	}, &s.StatementTimeout)...)
	diags = append(diags, boolAttr(content.Attributes, "read_only", static, &s.ReadOnly)...)
	return s, diags
}

// sqlitePath makes a sqlite dsn's file path absolute against the config
// file's directory, keeping its query (?_pragma=...); a file: URI is left
// as written.
func sqlitePath(dsn, baseDir string) string {
	if strings.HasPrefix(dsn, "file:") {
		return dsn
	}
	path, query, hasQuery := strings.Cut(dsn, "?")
	if !filepath.IsAbs(path) {
		path = filepath.Join(baseDir, path)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs // the config may be named relative to a directory a later chdir would change
	}
	if hasQuery {
		return path + "?" + query
	}
	return path
}

// backendDefaults is what a tool takes from its backend's capabilities:
// the output schema of a backend whose output is structured
// (adapters.StructuredOutput) when the tool has no result block, and, for
// a backend that writes (adapters.Writer), a destructiveHint and a confirm
// question unless the tool sets its own.
func (t *Tool) backendDefaults() {
	if so, ok := t.Backend.(adapters.StructuredOutput); ok && t.Result == nil {
		t.OutputSchemaJSON = so.OutputSchema()
	}
	w, ok := t.Backend.(adapters.Writer)
	if !ok || !w.Writes() {
		return
	}
	if t.Annotations == nil {
		t.Annotations = &Annotations{}
	}
	if t.Annotations.DestructiveHint == nil {
		yes := true
		t.Annotations.DestructiveHint = &yes
	}
	if t.Confirm == nil {
		t.Confirm = hcl.StaticExpr(cty.StringVal(fmt.Sprintf("Run %s? It changes the database.", t.Name)), t.DeclRange)
	}
}

package openapi

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/hclfmt"
)

// Options choose what Convert imports and where the tools call.
type Options struct {
	// Source names the document in the output's comment and in errors.
	Source string
	// Tags and Operations select operations: those with one of the tags,
	// and those with one of the operationIds. Neither: all of them, up
	// to Limit.
	Tags, Operations []string
	// BaseURL, when set, is the base URL in place of the document's
	// first server.
	BaseURL string
	// Limit is the most operations imported without a selection
	// (DefaultLimit when 0).
	Limit int
}

// ErrNoOperations is the error of a document without operations.
var ErrNoOperations = errors.New("the document has no operations under paths, so there is nothing to import")

// converter holds what every tool of one Convert shares.
type converter struct {
	doc     *Document
	opts    Options
	prefix  string // of environment variable names, as SWAGGER_PETSTORE
	baseURL string // the default of PREFIX_BASE_URL, "" for none
	envs    []string
	notes   []string
	names   uniqueNames
	// total is the number of operations of the document; written the
	// number of tools written.
	total, written int
}

// Convert writes the tools for the operations opts selects as HCL, in
// the canonical style of toolhost fmt. A large document without a
// selection is a *SelectionError.
func Convert(doc *Document, opts Options) ([]byte, error) {
	if opts.Source == "" {
		opts.Source = "the document"
	}
	all := operations(doc)
	ops, err := selectOps(all, opts)
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("%s: %w", opts.Source, ErrNoOperations)
	}
	c := &converter{doc: doc, opts: opts, names: uniqueNames{max: maxToolName}, total: len(all)}
	c.prefix = envPrefix(doc)
	c.baseURL, err = c.base()
	if err != nil {
		return nil, err
	}
	var tools writer
	for _, o := range ops {
		var w writer
		if note := c.tool(&w, o); note != "" {
			c.notes = append(c.notes, fmt.Sprintf("%s: %s", o.label(), note))
			continue
		}
		c.written++
		tools.b.WriteString("\n")
		tools.b.WriteString(w.b.String())
	}
	if doc.Webhooks > 0 {
		c.notes = append(c.notes, fmt.Sprintf("webhooks (%d): they are requests the API sends, not operations a tool calls", doc.Webhooks))
	}
	var out writer
	c.header(&out)
	out.b.WriteString(tools.b.String())
	return hclfmt.Format([]byte(out.b.String())), nil
}

// envPrefix is the start of the environment variables the tools read,
// from the first words of the API's title, up to three and up to a
// possessive: SWAGGER_PETSTORE for "Swagger Petstore", GITHUB for
// "GitHub's official OpenAPI spec".
func envPrefix(doc *Document) string {
	title := ""
	if doc.Info != nil {
		title = doc.Info.Title
	}
	words := strings.FieldsFunc(title, func(r rune) bool {
		return !(r == '\'' || r == '’' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	var parts []string
	for _, w := range words {
		base, possessive := strings.CutSuffix(strings.NewReplacer("’", "'").Replace(w), "'s")
		base = strings.ToUpper(strings.ReplaceAll(base, "'", ""))
		if base != "" {
			parts = append(parts, base)
		}
		if possessive || len(parts) == 3 {
			break
		}
	}
	p := strings.Join(parts, "_")
	if p == "" {
		return "API"
	}
	if p[0] >= '0' && p[0] <= '9' {
		p = "API_" + p
	}
	return p
}

// base is the base URL: --base-url, else the first server's URL with
// its variables at their defaults. A relative server URL, or none, gives
// "" (the tools then need PREFIX_BASE_URL set).
func (c *converter) base() (string, error) {
	if c.opts.BaseURL != "" {
		u, err := url.Parse(c.opts.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("--base-url %q is not an http or https URL with a host; give one such as https://api.example.com/v1", c.opts.BaseURL)
		}
		if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return "", fmt.Errorf("--base-url %s has a user, a password, a query or a fragment, which the tools' paths cannot follow and which must not be written in a config; give the scheme, host and path only, such as https://api.example.com/v1 (credentials come from the environment)", u.Redacted())
		}
		return strings.TrimRight(c.opts.BaseURL, "/"), nil
	}
	if len(c.doc.Servers) == 0 || c.doc.Servers[0] == nil {
		c.notes = append(c.notes, fmt.Sprintf("the document names no server: set %s_BASE_URL, or import again with --base-url", c.prefix))
		return "", nil
	}
	raw, ok := c.serverURL(c.doc.Servers[0])
	if !ok {
		shown := c.doc.Servers[0].URL
		if u, err := url.Parse(shown); err == nil {
			shown = u.Redacted()
		}
		c.notes = append(c.notes, fmt.Sprintf("the first server, %q, is not an absolute http or https URL: set %s_BASE_URL, or import again with --base-url", shown, c.prefix))
		return "", nil
	}
	return raw, nil
}

// serverURL is a server's URL with its variables at their defaults and
// no slash at its end, and whether it is an absolute http or https URL.
// A user and password in it are left out (a config holds no
// credentials), and so are a query and a fragment (the tools' paths
// follow the URL), each said in the comment at the top.
func (c *converter) serverURL(s *Server) (string, bool) {
	if s == nil {
		return "", false
	}
	raw := s.URL
	for name, v := range s.Variables {
		raw = strings.ReplaceAll(raw, "{"+name+"}", v)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
		note := fmt.Sprintf("the user, password, query or fragment of the server URL %s (a config holds no credentials, and the tools' paths follow the URL): add them by hand if the API needs them", u.String())
		if !slices.Contains(c.notes, note) {
			c.notes = append(c.notes, note)
		}
		raw = u.String()
	}
	return strings.TrimRight(raw, "/"), true
}

// opBase is the base URL an operation's own servers (or its path
// item's) give, as GitHub's uploads do, "" when it has none that is
// absolute or --base-url is set: such an operation calls its server,
// not PREFIX_BASE_URL.
func (c *converter) opBase(o operation) string {
	if c.opts.BaseURL != "" {
		return ""
	}
	for _, servers := range [][]*Server{o.op.Servers, o.item.Servers} {
		if len(servers) > 0 {
			if u, ok := c.serverURL(servers[0]); ok && u != c.baseURL {
				return u
			}
			return ""
		}
	}
	return ""
}

// header writes the comment at the top: where the tools came from, the
// variables they read, and what was left out and why.
func (c *converter) header(w *writer) {
	title, version := "the API", ""
	if c.doc.Info != nil {
		title, version = c.doc.Info.Title, c.doc.Info.Version
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Tools for %s %s, made by toolhost import openapi from %s (OpenAPI %s).\n", title, version, filepath.Base(c.opts.Source), c.doc.OpenAPI)
	fmt.Fprintf(&b, "%s of the document's %s", count(c.written, "tool"), count(c.total, "operation"))
	var sel []string
	for _, t := range c.opts.Tags {
		sel = append(sel, "--tag "+t)
	}
	for _, o := range c.opts.Operations {
		sel = append(sel, "--operation "+o)
	}
	if len(sel) > 0 {
		fmt.Fprintf(&b, ", chosen with %s", strings.Join(sel, " "))
	}
	b.WriteString(".\nReview them before serving: keep the tools a model needs, sharpen their\ndescriptions, and run toolhost validate.\n")
	if c.baseURL != "" {
		fmt.Fprintf(&b, "Base URL: %s_BASE_URL, by default %s.\n", c.prefix, c.baseURL)
	} else {
		fmt.Fprintf(&b, "Base URL: %s_BASE_URL (set it).\n", c.prefix)
	}
	if len(c.envs) > 0 {
		fmt.Fprintf(&b, "Credentials come from the environment, never from this file: %s.\n", strings.Join(c.envs, ", "))
	}
	if len(c.notes) > 0 {
		b.WriteString("\nLeft out:\n")
		for _, n := range c.notes {
			b.WriteString("- " + n + "\n")
		}
	}
	w.comment(strings.TrimRight(b.String(), "\n"))
}

// count is n and noun, in the plural unless n is 1: 1 tool, 2 tools.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// env records an environment variable the tools read, for the header.
func (c *converter) env(name string) string {
	if !slices.Contains(c.envs, name) {
		c.envs = append(c.envs, name)
	}
	return name
}

// toolName is the tool's name: its operationId in snake_case, or its
// method and path, unique among the tools written.
func (c *converter) toolName(o operation) string {
	name := snake(o.op.OperationID)
	if name == "" {
		name = snake(strings.ToLower(o.method) + " " + strings.NewReplacer("{", " by ", "}", " ").Replace(o.path))
	}
	if name == "" {
		name = strings.ToLower(o.method)
	}
	return c.names.take(name)
}

// description is what the model reads about the tool: the summary,
// then the first paragraph of the description when it says more.
func description(op *Operation) string {
	sum := brief(op.Summary, 200)
	desc := brief(op.Description, 400)
	var d string
	switch {
	case sum == "":
		d = desc
	case desc == "" || strings.HasPrefix(desc, strings.TrimSuffix(sum, ".")):
		d = sum
	default:
		d = strings.TrimSuffix(sum, ".") + ". " + desc
	}
	if op.Deprecated {
		d = strings.TrimSpace("Deprecated. " + d)
	}
	return d
}

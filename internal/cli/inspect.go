package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
)

func runInspect(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("inspect", "inspect [--json] [--offline] [CONFIG...]", stderr)
	asJSON := fs.Bool("json", false, "print exactly what clients receive (tools with full JSON schemas, resources, templates, prompts) as JSON")
	offline := addOfflineFlag(fs)
	paths, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	paths, ok := defaultConfigOr("inspect", paths, "", stderr)
	if !ok {
		return ExitFailure
	}
	reg, ok := loadWith("inspect", paths, loadOptions(*offline), stderr)
	if !ok {
		return ExitFailure
	}
	defer reg.Close()
	if *asJSON {
		offlineBanner(stderr, reg) // stdout is what clients receive
		return inspectJSON(reg, stdout, stderr)
	}
	offlineBanner(stdout, reg)
	inspectText(reg, stdout)
	return ExitOK
}

// inspectJSON prints what clients receive, as the SDK writes it: the
// initialize result's serverInfo and instructions, then the lists, sorted
// as the SDK sorts them. Empty
// optional fields (a server without title or instructions) are left out,
// as they are on the wire.
func inspectJSON(reg *host.Registry, stdout, stderr io.Writer) int {
	s := reg.Config.Server
	out := struct {
		ServerInfo        *mcp.Implementation     `json:"serverInfo"`
		Instructions      string                  `json:"instructions,omitempty"`
		Tools             []any                   `json:"tools"`
		Resources         []*mcp.Resource         `json:"resources"`
		ResourceTemplates []*mcp.ResourceTemplate `json:"resourceTemplates"`
		Prompts           []*mcp.Prompt           `json:"prompts"`
	}{
		ServerInfo:   &mcp.Implementation{Name: s.Name, Title: s.Title, Version: s.Version},
		Instructions: s.Instructions,
		// In the order of the lists clients get: the SDK sorts them.
		Tools:             listedTools(reg),
		Resources:         sortedBy(reg.Resources, func(r *mcp.Resource) string { return r.URI }),
		ResourceTemplates: sortedBy(reg.Templates, func(t *mcp.ResourceTemplate) string { return t.URITemplate }),
		Prompts:           sortedBy(reg.Prompts, func(p *mcp.Prompt) string { return p.Name }),
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "toolhost inspect: %s\n", err)
		return ExitFailure
	}
	fmt.Fprintln(stdout, string(b))
	return ExitOK
}

// inspectText prints what a client sees as a summary for people: the
// server, then each tool with its parameters (type, whether required, the
// constraints of the schema) and what it returns, then resources,
// templates and prompts. The resources' MIME types are those clients get
// in resources/list, inferred from a file's name when the config gives
// none, as inspect --json shows them.
func inspectText(reg *host.Registry, w io.Writer) {
	cfg := reg.Config
	s := cfg.Server
	title := s.Name + " " + s.Version
	if s.Title != "" {
		title += " (" + s.Title + ")"
	}
	fmt.Fprintln(w, title)
	if s.Instructions != "" {
		fmt.Fprintln(w, indentText(s.Instructions, "  "))
	}
	inspectAuth(w, s.Auth)

	fmt.Fprintf(w, "\n%s\n", countTitle(len(cfg.Tools), "tool"))
	for i, t := range cfg.Tools {
		if i > 0 {
			fmt.Fprintln(w)
		}
		inspectTool(w, t)
	}

	if len(cfg.Resources) > 0 {
		fmt.Fprintf(w, "\n%s\n", countTitle(len(cfg.Resources), "resource"))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for i, r := range cfg.Resources {
			// reg.Resources holds one entry for each, in the same order.
			row(tw, "  ", r.Name, r.URI, orDash(reg.Resources[i].MIMEType), oneLine(firstOf(r.Title, r.Description)))
		}
		tw.Flush()
	}
	if len(cfg.ResourceTemplates) > 0 {
		fmt.Fprintf(w, "\n%s\n", countTitle(len(cfg.ResourceTemplates), "resource template"))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, r := range cfg.ResourceTemplates {
			row(tw, "  ", r.Name, r.URITemplate, orDash(r.MIMEType), oneLine(firstOf(r.Title, r.Description)))
		}
		tw.Flush()
	}
	if len(cfg.Prompts) > 0 {
		fmt.Fprintf(w, "\n%s\n", countTitle(len(cfg.Prompts), "prompt"))
		for _, p := range cfg.Prompts {
			head := "  " + p.Name
			if d := firstOf(p.Title, p.Description); d != "" {
				head += ": " + oneLine(d)
			}
			fmt.Fprintln(w, head)
			if len(p.Args) == 0 {
				continue
			}
			fmt.Fprintln(w, "    arguments:")
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			for _, a := range p.Args {
				req := "required"
				if !a.Required {
					req = "optional"
				}
				row(tw, "      ", a.Name, req, oneLine(a.Description))
			}
			tw.Flush()
		}
	}
	inspectScopes(w, cfg)
	fmt.Fprintln(w, "\nThe full JSON schemas: toolhost inspect --json")
}

// inspectTool prints one tool for inspectText: its name and tags, its
// description, its arguments, what it asks the user and what it returns.
func inspectTool(w io.Writer, t *thcl.Tool) {
	head := "  " + t.Name
	if t.Title != "" {
		head += ": " + t.Title
	}
	tags := []string{t.BackendKind}
	if a := t.Annotations; a != nil {
		if a.ReadOnlyHint {
			tags = append(tags, "read-only")
		}
		if a.DestructiveHint != nil && *a.DestructiveHint {
			tags = append(tags, "destructive")
		}
		if a.IdempotentHint {
			tags = append(tags, "idempotent")
		}
		if a.OpenWorldHint != nil && *a.OpenWorldHint {
			tags = append(tags, "open-world")
		}
	}
	if n := len(t.Examples); n > 0 {
		tags = append(tags, plural(n, "example"))
	}
	fmt.Fprintf(w, "%s  [%s]\n", head, strings.Join(tags, ", "))
	if t.Description != "" {
		fmt.Fprintln(w, indentText(t.Description, "    "))
	}
	switch {
	case t.RawInput != nil:
		line := "    arguments: as its input_schema says (toolhost inspect --json shows it)"
		if len(t.RawInput.Properties) > 0 {
			line += "; its properties: " + strings.Join(t.RawInput.Properties, ", ")
		}
		fmt.Fprintln(w, line)
	case len(t.Params) == 0:
		fmt.Fprintln(w, "    takes no arguments")
	default:
		fmt.Fprintln(w, "    arguments:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, p := range t.Params {
			row(tw, "      ", p.Name, paramSummary(p), oneLine(p.Description))
		}
		tw.Flush()
	}
	if t.Confirm != nil {
		line := "    asks the user to confirm each call"
		switch {
		case t.Ask != nil: // the form's line says what a client that cannot ask gets
		case t.ConfirmFallback == "allow":
			line += " (calls from a client that cannot ask run without asking)"
		default:
			line += " (calls from a client that cannot ask are refused)"
		}
		fmt.Fprintln(w, line)
	}
	if len(t.Claims) > 0 {
		fmt.Fprintf(w, "    reads the caller's token: claims %s (a call without them is refused, and so is every call over stdio)\n", strings.Join(t.Claims, ", "))
	}
	if x, ok := t.Backend.(adapters.TokenExchanger); ok && x.TokenExchange() != nil {
		fmt.Fprintln(w, "    sends its upstream a token the issuer exchanges for the caller's (token_exchange; every call over stdio is refused)")
	}
	switch t.Task {
	case thcl.TaskOptional:
		fmt.Fprintln(w, "    runs as a task (in the background, polled by the client) for clients that support tasks, at once for others")
	case thcl.TaskRequired:
		fmt.Fprintln(w, "    runs only as a task (in the background, polled by the client): clients that do not support tasks are refused")
	}
	if t.Ask != nil {
		fmt.Fprintln(w, "    asks the user to fill in a form before each call (calls from a client that cannot ask are refused):")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, f := range t.Ask.Fields {
			row(tw, "      ", f.Name, paramSummary(f), oneLine(firstOf(f.Title, f.Description)))
		}
		tw.Flush()
	}
	if t.Result == nil {
		what := "text"
		if d, ok := t.Backend.(adapters.OutputDescriber); ok {
			what = d.DescribeOutput()
		}
		fmt.Fprintln(w, "    returns "+what)
	} else {
		fmt.Fprintln(w, "    returns:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, f := range t.Result.Fields {
			ty := f.Type.String()
			if f.Optional {
				ty += ", optional"
			}
			row(tw, "      ", f.Name, ty, oneLine(f.Description))
		}
		for _, c := range t.Result.Content {
			row(tw, "      ", "["+string(c.Kind)+"]", contentSource(c), "")
		}
		tw.Flush()
	}
}

// row writes one table row, leaving out empty cells at its end so that no
// line ends in spaces.
func row(w io.Writer, indent string, cells ...string) {
	for len(cells) > 1 && cells[len(cells)-1] == "" {
		cells = cells[:len(cells)-1]
	}
	fmt.Fprintln(w, indent+strings.Join(cells, "\t"))
}

// paramSummary renders a parameter's schema in one line: type, required or
// default, and constraints.
func paramSummary(p *thcl.Param) string {
	parts := []string{p.Type.String()}
	switch {
	case p.Default != cty.NilVal && p.Sensitive:
		parts = append(parts, "default (sensitive, not shown)")
	case p.Default != cty.NilVal:
		parts = append(parts, "default "+string(thcl.EncodeJSON(p.Type, p.Default)))
	case p.Required:
		parts = append(parts, "required")
	default:
		parts = append(parts, "optional")
	}
	if len(p.Enum) > 0 {
		vals := make([]string, len(p.Enum))
		for i, e := range p.Enum {
			vals[i] = string(thcl.EncodeJSON(p.Type, e))
		}
		parts = append(parts, "one of "+strings.Join(vals, ", "))
	}
	parts = append(parts, bounds(p.Minimum, p.Maximum)...)
	parts = append(parts, countBounds("length", p.MinLength, p.MaxLength)...)
	parts = append(parts, countBounds("items", p.MinItems, p.MaxItems)...)
	if p.Pattern != nil {
		parts = append(parts, "pattern "+p.Pattern.String())
	}
	if p.Sensitive {
		parts = append(parts, "sensitive")
	}
	if p.AllowFlags {
		parts = append(parts, "allows flags")
	}
	return strings.Join(parts, ", ")
}

func bounds(lo, hi *float64) []string {
	switch {
	case lo != nil && hi != nil:
		return []string{fmt.Sprintf("%v to %v", *lo, *hi)}
	case lo != nil:
		return []string{fmt.Sprintf("at least %v", *lo)}
	case hi != nil:
		return []string{fmt.Sprintf("at most %v", *hi)}
	}
	return nil
}

func countBounds(what string, lo, hi *int) []string {
	switch {
	case lo != nil && hi != nil:
		return []string{fmt.Sprintf("%s %d to %d", what, *lo, *hi)}
	case lo != nil:
		return []string{fmt.Sprintf("%s at least %d", what, *lo)}
	case hi != nil:
		return []string{fmt.Sprintf("%s at most %d", what, *hi)}
	}
	return nil
}

func countTitle(n int, what string) string {
	if n == 0 {
		return "no " + what + "s"
	}
	return plural(n, what)
}

func indentText(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// oneLine keeps a description on one line of a table.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// contentSource says where a content item's data comes from, for inspect.
func contentSource(c *thcl.Content) string {
	switch {
	case c.Text != nil:
		return "from a template"
	case c.Path != nil:
		return "from a path in the output"
	case c.Data != nil:
		return "from base64 data"
	case c.File != "":
		return "from " + filepath.Base(c.File)
	case c.Kind == thcl.ContentResourceLink:
		return "a link"
	case c.Kind == thcl.ContentResource && !c.Output:
		return "a declared resource"
	case c.Kind == thcl.ContentResource:
		return "a declared resource, or the output"
	}
	return "the output"
}

// sortedBy returns a sorted copy of list (never nil, so that an empty list
// prints as []), ordered by key.
func sortedBy[T any](list []T, key func(T) string) []T {
	out := append(make([]T, 0, len(list)), list...)
	slices.SortStableFunc(out, func(a, b T) int { return strings.Compare(key(a), key(b)) })
	return out
}

// listedTools are the tools as tools/list shows them, sorted as the SDK
// sorts them, with their task support.
func listedTools(reg *host.Registry) []any {
	var out []any
	for _, t := range sortedBy(reg.Tools, func(t *mcp.Tool) string { return t.Name }) {
		out = append(out, reg.ListedTool(t))
	}
	return out
}

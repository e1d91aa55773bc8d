package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
)

// runRead reads one resource as a client would (resources/read): a
// declared resource, or a resource of a template, by its URI. Text goes to
// stdout as it is; binary content is printed as base64, or written as it
// is with -o FILE (-o - for stdout), which writes text too. --json prints the result as the
// client receives it. A resource that cannot be read exits 1; a malformed
// command line exits 2.
func runRead(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("read", "read [CONFIG] URI [-o FILE] [--json]", stderr)
	outFile := fs.String("o", "", "write the content to FILE, byte for byte (binary content too), instead of to stdout; -o - writes the bytes to stdout")
	asJSON := fs.Bool("json", false, "print the result as clients receive it, as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	// A config file alone has no URI after it.
	configAlone := len(pos) == 1 && !strings.Contains(pos[0], ":") && (strings.HasSuffix(pos[0], ".hcl") || strings.HasSuffix(pos[0], ".json"))
	if len(pos) == 0 || len(pos) > 2 || configAlone {
		fs.Usage()
		fmt.Fprintln(stderr, "toolhost read: give the URI of the resource to read, after the config when it is not ./tools.hcl, as in: toolhost read tools.hcl file:///notes.md")
		return ExitUsage
	}
	if *asJSON && *outFile != "" {
		fmt.Fprintln(stderr, "toolhost read: -o writes the content and --json prints the whole result; give one of them")
		return ExitUsage
	}
	uri := pos[len(pos)-1]
	paths, ok := defaultConfigOr("read", pos[:len(pos)-1], uri, stderr)
	if !ok {
		return ExitFailure
	}
	reg, readCtx, done, ok := loadToRun(ctx, "read", paths, nil, stderr)
	if !ok {
		return ExitFailure
	}
	defer done()
	res, err := reg.ReadResource(readCtx, uri)
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code == mcp.CodeResourceNotFound {
		if why, dir := reg.TemplateMiss(uri); why != "" {
			if dir != "" {
				why += fmt.Sprintf("; its files are those in %s, by name", dir)
			}
			fmt.Fprintf(stderr, "toolhost read: cannot read %q: %s.\n", uri, why)
			return ExitFailure
		}
		fmt.Fprintf(stderr, "toolhost read: %s\n", noResource(reg, paths[0], uri))
		return ExitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "toolhost read: %s\n", err)
		return ExitFailure
	}
	switch {
	case *asJSON:
		return printJSON("read", res, stdout, stderr)
	case *outFile != "":
		var data []byte
		for _, c := range res.Contents {
			data = append(data, c.Text...)
			data = append(data, c.Blob...)
		}
		if *outFile == "-" {
			_, _ = stdout.Write(data)
			return ExitOK
		}
		if err := os.WriteFile(*outFile, data, 0o644); err != nil {
			fmt.Fprintf(stderr, "toolhost read: %s\n", err)
			return ExitFailure
		}
		return ExitOK
	}
	for _, c := range res.Contents {
		if c.Blob == nil {
			fmt.Fprint(stdout, c.Text)
			continue
		}
		fmt.Fprintln(stdout, base64.StdEncoding.EncodeToString(c.Blob))
		fmt.Fprintf(stderr, "toolhost read: %s is binary (%s, %d bytes) and was printed as base64; write its bytes with -o FILE\n", c.URI, orDash(c.MIMEType), len(c.Blob))
	}
	return ExitOK
}

// loadToRun loads the config of paths with opts (loadOptions) for a
// command that runs what it declares (call, read, prompt), and returns the
// context to run it in, which a stop signal ends (stoppable), and the
// function to call when done, which closes the registry. It reports false,
// having said why, when the config is not valid.
func loadToRun(ctx context.Context, cmd string, paths []string, opts *thcl.Options, stderr io.Writer) (*host.Registry, context.Context, func(), bool) {
	reg, ok := loadWith(cmd, paths, opts, stderr)
	if !ok {
		return nil, nil, nil, false
	}
	runCtx, done := stoppable(ctx)
	return reg, runCtx, func() {
		reg.Close()
		done()
	}, true
}

// noResource says that uri names no resource of the config: what it is
// instead (a tool, a prompt), or the URI close to it, and the resources
// and templates there are.
func noResource(reg *host.Registry, config, uri string) string {
	if hint := otherKind(reg, config, uri, "resource"); hint != "" {
		return hint
	}
	var uris, templates []string
	for _, r := range reg.Resources {
		uris = append(uris, r.URI)
	}
	for _, t := range reg.Templates {
		templates = append(templates, t.URITemplate)
	}
	msg := fmt.Sprintf("there is no resource %q in %s%s", uri, config, closeHint(uri, uris))
	switch {
	case len(uris) == 0 && len(templates) == 0:
		return msg + "; it declares no resources"
	case len(uris) > 0:
		msg += "; the resources are: " + strings.Join(uris, ", ")
	}
	if len(templates) > 0 {
		msg += "; the resource templates are: " + strings.Join(templates, ", ") + " (a URI of one of them names a file of its directory, or what its command makes of it)"
	}
	return msg
}

// otherKind says what name is when the config has no want ("tool",
// "resource", "prompt") of that name but something else, with the command
// that uses it, as in "notes is a prompt, not a tool; use toolhost prompt
// tools.hcl notes", or a resource template's name, which names none of its
// resources. It is "" when name is nothing else either.
func otherKind(reg *host.Registry, config, name, want string) string {
	not := ", not a " + want
	if want != "tool" {
		if _, ok := reg.Tool(name); ok {
			return fmt.Sprintf("%s is a tool%s; use toolhost call %s %s", name, not, config, name)
		}
	}
	if want != "prompt" && hasPrompt(reg, name) {
		return fmt.Sprintf("%s is a prompt%s; use toolhost prompt %s %s", name, not, config, name)
	}
	if want == "resource" {
		// A resource is read by its URI, not its name.
		not = ""
	}
	for _, r := range reg.Resources {
		if r.Name == name || r.URI == name {
			return fmt.Sprintf("%s is a resource%s; read it by its URI: toolhost read %s %s", name, not, config, r.URI)
		}
	}
	for _, t := range reg.Templates {
		if t.Name == name || t.URITemplate == name {
			return fmt.Sprintf("%s is a resource template (%s)%s; read one of its resources with toolhost read %s URI, with a URI of that form", name, t.URITemplate, not, config)
		}
	}
	return ""
}

// printJSON prints v indented for reading, as --json asks.
func printJSON(cmd string, v any, stdout, stderr io.Writer) int {
	b, err := indentForReading(v)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost %s: %s\n", cmd, err)
		return ExitFailure
	}
	fmt.Fprintln(stdout, string(b))
	return ExitOK
}

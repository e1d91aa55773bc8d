package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
)

// The output formats of validate.
const (
	formatText   = "text"
	formatJSON   = "json"
	formatGitHub = "github"
)

func runValidate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("validate", "validate [--format text|json|github] [--online] [CONFIG...]", stderr)
	online := fs.Bool("online", false, "also check against the live systems the tools reach: each sql block's statement is prepared (not run) on its database, which catches a misspelt table or column; needs the databases reachable and their dsn variables set")
	format := fs.String("format", formatText, "output: text (HCL's rendering with source snippets, on stderr), json (one object with every diagnostic, on stdout) or github (GitHub Actions annotations, on stdout)")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	switch *format {
	case formatText, formatJSON, formatGitHub:
	default:
		fmt.Fprintf(stderr, "toolhost validate: unknown format %q: use text, json or github\n", *format)
		return ExitUsage
	}
	paths, ok := defaultConfigOr("validate", paths, "", stderr)
	if !ok {
		return ExitFailure
	}

	// The load path of serve, and nothing else runs but the examples,
	// which are offline.
	reg, diags := host.Load(paths, nil)
	defer reg.Close()
	// The examples of every tool without errors run even when other
	// blocks have some: every problem shows in one run. They start
	// nothing (no request, no command), so the signal handlers are not
	// installed: a stop signal ends validate at once.
	examples := host.CheckExamples(ctx, reg)
	diags = append(diags, examples.Diagnostics...)
	if *online {
		diags = append(diags, checkOnline(ctx, reg)...)
	}
	cfg := reg.Config
	errs, warns, _ := countDiags(diags)

	switch *format {
	case formatJSON:
		writeJSONDiags(stdout, diags, examples)
	case formatGitHub:
		writeGitHubDiags(stdout, diags)
	default:
		writeDiags(stderr, cfg, diags)
	}
	names := configNames(paths)
	if errs > 0 {
		fmt.Fprintf(stderr, "toolhost validate: %s: %s\n", names, countLine(diags))
		return ExitFailure
	}
	summary := fmt.Sprintf("%s: valid", names)
	if warns > 0 {
		summary += ", " + plural(warns, "warning")
	}
	summary += fmt.Sprintf(" (%s, %s, %s, %s", plural(len(cfg.Tools), "tool"), plural(len(cfg.Resources), "resource"), plural(len(cfg.ResourceTemplates), "resource template"), plural(len(cfg.Prompts), "prompt"))
	if examples.Run > 0 {
		summary += fmt.Sprintf("; %s passed", plural(examples.Run, "example"))
	}
	summary += ")"
	if *format == formatText {
		fmt.Fprintln(stdout, summary)
	} else {
		fmt.Fprintln(stderr, summary)
	}
	return ExitOK
}

// countDiags counts the errors and warnings a load found, those left out
// after a file's first syntax errors included (see thcl.NotShown), and
// how many of them are not shown.
func countDiags(diags hcl.Diagnostics) (errs, warns, notShown int) {
	for _, d := range diags {
		if ns, ok := d.Extra.(thcl.NotShown); ok {
			errs += ns.Errors
			warns += ns.Warnings
			notShown += ns.Errors + ns.Warnings
			continue
		}
		if d.Severity == hcl.DiagError {
			errs++
		} else {
			warns++
		}
	}
	return errs, warns, notShown
}

// countLine is the count of a load's problems in a closing line, as in
// "43 errors, 0 warnings (33 not shown)".
func countLine(diags hcl.Diagnostics) string {
	errs, warns, notShown := countDiags(diags)
	s := plural(errs, "error") + ", " + plural(warns, "warning")
	if notShown > 0 {
		s += fmt.Sprintf(" (%d not shown)", notShown)
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// JSONDiagnostic is one diagnostic in validate's json format. The fields
// are stable: tools may rely on them.
type JSONDiagnostic struct {
	// Severity is "error" or "warning".
	Severity string `json:"severity"`
	// Summary is a short description, such as "Undeclared parameter".
	Summary string `json:"summary"`
	// Detail says what is wrong and how to fix it, in full sentences.
	Detail string `json:"detail"`
	// Filename is the config file as given on the command line, or "" for
	// a problem with no place in a file (such as a missing config).
	Filename string `json:"filename"`
	// StartLine, StartColumn, EndLine and EndColumn are 1-based; the end is
	// exclusive. They are 0 when Filename is "".
	StartLine   int `json:"start_line"`
	StartColumn int `json:"start_column"`
	EndLine     int `json:"end_line"`
	EndColumn   int `json:"end_column"`
}

// JSONReport is the document validate --format json prints.
type JSONReport struct {
	// Valid is true when there is no error (warnings are allowed).
	Valid        bool `json:"valid"`
	ErrorCount   int  `json:"error_count"`
	WarningCount int  `json:"warning_count"`
	// NotShown counts the errors and warnings, among those counted above,
	// that Diagnostics leaves out: after the first ten syntax errors of a
	// file, one diagnostic ("Too many syntax errors") stands for the rest.
	NotShown int `json:"not_shown"`
	// Examples counts the example blocks run, and those that failed.
	Examples struct {
		Run    int `json:"run"`
		Failed int `json:"failed"`
	} `json:"examples"`
	// Diagnostics are in the order they were found: files in load order,
	// then the examples.
	Diagnostics []JSONDiagnostic `json:"diagnostics"`
}

func writeJSONDiags(w io.Writer, diags hcl.Diagnostics, examples host.ExampleReport) {
	rep := JSONReport{Diagnostics: []JSONDiagnostic{}}
	rep.ErrorCount, rep.WarningCount, rep.NotShown = countDiags(diags)
	rep.Valid = rep.ErrorCount == 0
	rep.Examples.Run, rep.Examples.Failed = examples.Run, examples.Failed
	for _, d := range diags {
		jd := JSONDiagnostic{Severity: "error", Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagWarning {
			jd.Severity = "warning"
		}
		if r := d.Subject; r != nil {
			jd.Filename = r.Filename
			jd.StartLine, jd.StartColumn = r.Start.Line, r.Start.Column
			jd.EndLine, jd.EndColumn = r.End.Line, r.End.Column
		}
		rep.Diagnostics = append(rep.Diagnostics, jd)
	}
	// Details quote commands (iconv ... < FILE > FILE.new && ...) and
	// markup: left as they are, not as \u003c and \u0026.
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(rep)
}

// writeGitHubDiags prints GitHub Actions workflow commands, so that each
// diagnostic annotates the line it points at in a pull request:
//
//	::error file=tools.hcl,line=3,col=12,endLine=3,endColumn=17,title=Undeclared parameter::The parameter ...
func writeGitHubDiags(w io.Writer, diags hcl.Diagnostics) {
	wd, _ := os.Getwd()
	for _, d := range diags {
		cmd := "error"
		if d.Severity == hcl.DiagWarning {
			cmd = "warning"
		}
		var props []string
		if r := d.Subject; r != nil {
			props = append(props,
				"file="+ghProperty(repoPath(wd, r.Filename)),
				fmt.Sprintf("line=%d", r.Start.Line),
				fmt.Sprintf("col=%d", r.Start.Column),
				fmt.Sprintf("endLine=%d", r.End.Line),
				fmt.Sprintf("endColumn=%d", r.End.Column))
		}
		props = append(props, "title="+ghProperty(d.Summary))
		fmt.Fprintf(w, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData(d.Detail))
		// A duplicate: the first declaration is marked too, with a notice.
		// Its message writes the path as the error's detail does (as the
		// config was named); only the file properties are the
		// repository's.
		if dup, ok := d.Extra.(thcl.DuplicateOf); ok && d.Subject != nil {
			r := dup.First
			fmt.Fprintf(w, "::notice file=%s,line=%d,col=%d,endLine=%d,endColumn=%d,title=%s::%s\n",
				ghProperty(repoPath(wd, r.Filename)), r.Start.Line, r.Start.Column, r.End.Line, r.End.Column,
				ghProperty("First declaration"), ghData(fmt.Sprintf("The %s declared here is declared again at %s:%d:%d.", dup.What, d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)))
		}
	}
}

// repoPath makes a file name relative to the working directory (where a
// workflow checks out the repository) when it is inside it, with slashes.
func repoPath(wd, name string) string {
	if filepath.IsAbs(name) && wd != "" {
		if rel, err := filepath.Rel(wd, name); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
	}
	return filepath.ToSlash(name)
}

// ghData escapes the message of a workflow command.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a property value of a workflow command.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

package hcl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// FormatDiagnostic renders one diagnostic on one line, as compilers do:
// "file:line:col: error: Summary: Detail".
func FormatDiagnostic(d *hcl.Diagnostic) string {
	sev := "error"
	if d.Severity == hcl.DiagWarning {
		sev = "warning"
	}
	var b strings.Builder
	if d.Subject != nil {
		fmt.Fprintf(&b, "%s:%d:%d: ", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
	}
	b.WriteString(sev + ": " + d.Summary)
	if d.Detail != "" {
		b.WriteString(": " + strings.Join(strings.Fields(d.Detail), " "))
	}
	return b.String()
}

// FormatDiagnostics renders diagnostics one per line with FormatDiagnostic.
func FormatDiagnostics(diags hcl.Diagnostics) string {
	lines := make([]string, len(diags))
	for i, d := range diags {
		lines[i] = FormatDiagnostic(d)
	}
	return strings.Join(lines, "\n")
}

// posString renders where a range starts as "file:line:col", the form
// FormatDiagnostic and compilers use, for messages that point at another
// place (hcl.Range's own String is "file:line,col-col").
func posString(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// capitalize upper-cases the first letter of an ASCII phrase, for one
// that starts a sentence.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// withArticle puts "a" or "an" before a word, as in "an arg block" and "an
// http block" (said aitch-tee-tee-pee).
func withArticle(word string) string {
	if word == "" {
		return word
	}
	switch word[0] {
	case 'a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U':
		return "an " + word
	}
	if strings.HasPrefix(strings.ToLower(word), "http") {
		return "an " + word
	}
	return "a " + word
}

// sentenceEnd ends a sentence with a full stop, unless it already ends
// with one, or with a question or exclamation mark.
func sentenceEnd(s string) string {
	s = strings.TrimRight(s, " ")
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
}

// rangeDiag is an error diagnostic pointing at the attribute's value.
func rangeDiag(a *hcl.Attribute, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: a.Expr.Range().Ptr()}
}

// ctyDisplay renders a known value as JSON for messages.
func ctyDisplay(v cty.Value) string {
	if v.ContainsMarked() {
		return "(sensitive value)"
	}
	if !v.IsWhollyKnown() {
		return "(unknown)"
	}
	if v.Type() == cty.Number && !v.IsNull() {
		return v.AsBigFloat().Text('g', 10)
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return "(a value that cannot be shown)"
	}
	if len(b) > 120 {
		return string(b[:100]) + "...(" + strconv.Itoa(len(b)) + " characters)"
	}
	return string(b)
}

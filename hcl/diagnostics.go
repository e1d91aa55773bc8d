package hcl

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
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

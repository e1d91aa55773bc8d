package docsnippets

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/tailscale/hujson"

	_ "github.com/toolhost/toolhost/adapters/all" // the backends a config's tools name
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
)

// Checker checks blocks against one repository.
type Checker struct {
	// Root is the repository's root: dir markers and the paths commands
	// name are relative to it.
	Root string
	// Toolhost is the toolhost binary commands run; when "", no command
	// runs and each is logged as not run.
	Toolhost string
	// NotRun says why no command runs, when Toolhost is "".
	NotRun string
	// Logf logs the commands left unrun, with why.
	Logf func(format string, args ...any)
	// TempDir gives a fresh directory, removed when the check is done.
	TempDir func() string
}

// Check checks one block and returns its problems.
func (c *Checker) Check(ctx context.Context, b Block) []Problem {
	if b.Skip != "" {
		return nil
	}
	switch kindOf(b.Lang) {
	case kindHCL:
		if b.Fragment {
			return c.checkFragment(b)
		}
		return c.checkConfig(ctx, b)
	case kindJSON:
		return checkJSON(b)
	case kindShell:
		return c.checkCommands(ctx, b)
	}
	return nil
}

// checkFragment parses a fragment as an HCL body.
func (c *Checker) checkFragment(b Block) []Problem {
	_, diags := hclsyntax.ParseConfig([]byte(b.Text), b.File, hcl.Pos{Line: b.Line + 1, Column: 1, Byte: 0})
	var out []Problem
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		line := b.Line
		if d.Subject != nil {
			line = d.Subject.Start.Line
		}
		out = append(out, Problem{b.File, line, fmt.Sprintf("this hcl fragment does not parse: %s: %s Fix it, or mark the block <!-- snippet: skip REASON --> when it elides parts (as with ...).", d.Summary, d.Detail)})
	}
	return out
}

// checkConfig loads a complete config the way validate does, in a
// temporary directory (a copy of the dir marker's directory, when there
// is one), and runs its examples.
func (c *Checker) checkConfig(ctx context.Context, b Block) []Problem {
	dir := c.TempDir()
	if b.Dir != "" {
		src := filepath.Join(c.Root, filepath.FromSlash(b.Dir))
		if st, err := os.Stat(src); err != nil || !st.IsDir() {
			return []Problem{{b.File, b.Line - 1, fmt.Sprintf("the dir marker names %s, which is not a directory of the repository: give a directory relative to the repository root.", b.Dir)}}
		}
		if err := copyTree(src, dir); err != nil {
			return []Problem{{b.File, b.Line, fmt.Sprintf("copying %s: %v", b.Dir, err)}}
		}
	}
	name := filepath.Join(dir, fmt.Sprintf("snippet-%d.hcl", b.Line))
	if err := os.WriteFile(name, []byte(b.Text), 0o644); err != nil {
		return []Problem{{b.File, b.Line, err.Error()}}
	}
	reg, diags := host.Load([]string{name}, &thcl.Options{LookupEnv: func(string) (string, bool) { return "", false }})
	if reg != nil {
		diags = append(diags, host.CheckExamples(ctx, reg).Diagnostics...)
		reg.Close()
	}
	var out []Problem
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		line := b.Line
		if d.Subject != nil && d.Subject.Filename == name {
			line = b.Line + d.Subject.Start.Line
		}
		msg := strings.TrimSpace(d.Summary + ": " + d.Detail)
		out = append(out, Problem{b.File, line, "this hcl block is not a valid config: " + msg + " Fix the block; if it shows only a part of a config, mark it <!-- snippet: fragment -->; if it names files of a directory of the repository, mark it <!-- snippet: dir PATH -->."})
	}
	return out
}

// checkJSON parses a json block as JSONC: one value, or one value a line,
// or, for a fragment, an object's members.
func checkJSON(b Block) []Problem {
	text := b.Text
	if b.Fragment {
		text = "{\n" + text + "\n}"
	}
	_, err := hujson.Parse([]byte(text))
	if err == nil {
		return nil
	}
	if !b.Fragment && jsonLines(text) {
		return nil
	}
	what := "one JSON value (comments and trailing commas allowed) nor JSON Lines"
	if b.Fragment {
		what = "the members of a JSON object (\"name\": value, ...)"
	}
	return []Problem{{b.File, b.Line, fmt.Sprintf("this json block is not %s: %v. Fix it; if it is an object's members, mark it <!-- snippet: fragment -->.", what, err)}}
}

// jsonLines tells whether every non-blank line of text is a JSON value.
func jsonLines(text string) bool {
	n := 0
	for l := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if _, err := hujson.Parse([]byte(l)); err != nil {
			return false
		}
		n++
	}
	return n > 1
}

// copyTree copies the directory src into dst, which exists.
func copyTree(src, dst string) error {
	const maxBytes = 64 << 20 // a directory of the docs' examples, not a checkout
	var total int64
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if total += int64(len(b)); total > maxBytes {
			return fmt.Errorf("%s holds more than %d MB: a snippet's directory should be small", src, maxBytes>>20)
		}
		mode := os.FileMode(0o644)
		if info, err := d.Info(); err == nil && info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		return os.WriteFile(target, b, mode)
	})
}

// firstLines gives at most n lines of s, for a problem's message.
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("... (%d more lines)", len(lines)-n))
	}
	return string(bytes.TrimSpace([]byte(strings.Join(lines, "\n"))))
}

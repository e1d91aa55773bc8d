package docsnippets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// commandTimeout caps one command's run: the docs' commands answer at once.
const commandTimeout = 2 * time.Minute

// command is one shell command of a block.
type command struct {
	line   int      // in the markdown file
	text   string   // as written, for messages
	env    []string // NAME=value assignments before it
	args   []string // its words, expanded
	stdin  string   // the file of a "< FILE" redirect, or ""
	dollar bool     // a word uses $ expansion or command substitution
}

// checkCommands runs the block's toolhost commands that the package doc
// lists, each in one temporary copy of the files the block names.
func (c *Checker) checkCommands(ctx context.Context, b Block) []Problem {
	cmds, problems := shellCommands(b)
	var work string // the block's temporary copy, made at its first run
	copied := map[string]bool{}
	for _, cmd := range cmds {
		sub, why := toolhostArgs(cmd.args, cmd.stdin != "")
		if why != "" {
			c.logf("%s:%d: not run: %s: %s", b.File, cmd.line, why, cmd.text)
			continue
		}
		if c.Toolhost == "" {
			c.logf("%s:%d: not run: %s: %s", b.File, cmd.line, c.NotRun, cmd.text)
			continue
		}
		if cmd.dollar {
			problems = append(problems, Problem{b.File, cmd.line, "this toolhost command uses $ expansion, which the check does not run: write the values out, or mark the block <!-- snippet: skip REASON -->."})
			continue
		}
		if work == "" {
			work = c.TempDir()
		}
		for _, p := range append(slices.Clone(sub), cmd.stdin) {
			if err := c.copyNamed(p, work, copied); err != nil {
				problems = append(problems, Problem{b.File, cmd.line, err.Error()})
			}
		}
		if (sub[0] == "call" || sub[0] == "serve") && !slices.Contains(sub, "--offline") && !slices.Contains(sub, "-offline") {
			sub = append([]string{sub[0], "--offline"}, sub[1:]...)
		}
		out, code, err := c.run(ctx, work, cmd, sub)
		switch {
		case err != nil:
			problems = append(problems, Problem{b.File, cmd.line, fmt.Sprintf("%s: %v", cmd.text, err)})
		case b.Fails && code != 1:
			problems = append(problems, Problem{b.File, cmd.line, fmt.Sprintf("%s: exit status %d, but the block is marked fails, which wants 1; output:\n%s", cmd.text, code, firstLines(out, 30))})
		case !b.Fails && code != 0:
			problems = append(problems, Problem{b.File, cmd.line, fmt.Sprintf("%s: exit status %d; output:\n%s\nFix the command or what it names; if it shows a failure on purpose, mark the block <!-- snippet: fails -->.", cmd.text, code, firstLines(out, 30))})
		}
	}
	return problems
}

// logf logs through Logf when it is set.
func (c *Checker) logf(format string, args ...any) {
	if c.Logf != nil {
		c.Logf(format, args...)
	}
}

// run runs toolhost with args in dir, with the command's assignments and
// stdin, and returns its combined output and exit status.
func (c *Checker) run(ctx context.Context, dir string, cmd command, args []string) (string, int, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	x := exec.CommandContext(ctx, c.Toolhost, args...)
	x.Dir = dir
	home := filepath.Join(dir, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return "", 0, err
	}
	x.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + os.TempDir()}, cmd.env...)
	if cmd.stdin != "" {
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(cmd.stdin)))
		if err != nil {
			return "", 0, fmt.Errorf("its stdin: %v", err)
		}
		defer f.Close()
		x.Stdin = f
	}
	var out bytes.Buffer
	x.Stdout, x.Stderr = &out, &out
	err := x.Run()
	if ctx.Err() != nil {
		return out.String(), 0, fmt.Errorf("did not end within %v", commandTimeout)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), exit.ExitCode(), nil
	}
	return out.String(), 0, err
}

// copyNamed copies into work what a command's word p names in the
// repository: the directory it names, or the directory of the file it
// names (so that a config's files beside it come along). Words that name
// nothing of the repository, or what is copied already, are left.
func (c *Checker) copyNamed(p, work string, copied map[string]bool) error {
	if _, v, ok := strings.Cut(p, "="); ok && strings.HasPrefix(p, "-") {
		p = v // --flag=path
	}
	if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "-") {
		return nil
	}
	clean := filepath.Clean(filepath.FromSlash(p))
	if clean == "." || strings.HasPrefix(clean, "..") {
		return nil
	}
	st, err := os.Stat(filepath.Join(c.Root, clean))
	if err != nil {
		return nil
	}
	dir := clean
	if !st.IsDir() {
		dir = filepath.Dir(clean)
	}
	if dir == "." {
		if copied[clean] {
			return nil
		}
		copied[clean] = true
		b, err := os.ReadFile(filepath.Join(c.Root, clean))
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(work, clean), b, 0o644)
	}
	for d := dir; d != "."; d = filepath.Dir(d) {
		if copied[d] {
			return nil
		}
	}
	copied[dir] = true
	target := filepath.Join(work, dir)
	if err := os.MkdirAll(target, 0o755); err != nil {
		return err
	}
	return copyTree(filepath.Join(c.Root, dir), target)
}

// subcommands are the toolhost subcommands the check runs.
var subcommands = []string{"validate", "fmt", "inspect", "call", "read", "prompt", "init", "import"}

// toolhostArgs returns toolhost's arguments when args is a toolhost
// command the check runs, or else why it is not run; stdin tells whether
// the command's stdin is a file (serve runs then, ending at its end).
func toolhostArgs(args []string, stdin bool) ([]string, string) {
	var sub []string
	switch {
	case len(args) >= 1 && args[0] == "toolhost":
		sub = args[1:]
	case len(args) >= 3 && args[0] == "go" && args[1] == "run" && strings.TrimSuffix(args[2], "/") == "./cmd/toolhost":
		sub = args[3:]
	case len(args) == 0:
		return nil, "not a command"
	default:
		return nil, "not a toolhost command"
	}
	if len(sub) > 0 && sub[0] == "serve" {
		if !stdin || slices.Contains(sub, "--listen") {
			return nil, "serve runs until its client goes away: the check runs it only over stdio with stdin from a file (< FILE)"
		}
		return sub, ""
	}
	if len(sub) == 0 || !slices.Contains(subcommands, sub[0]) {
		return nil, "a toolhost subcommand the check does not run (it runs validate, fmt --check, inspect, call, read, prompt, init, import openapi, and serve with stdin from a file)"
	}
	switch sub[0] {
	case "fmt":
		if !slices.Contains(sub, "--check") && !slices.Contains(sub, "-check") {
			return nil, "fmt without --check rewrites files"
		}
	case "import":
		if len(sub) < 2 || sub[1] != "openapi" {
			return nil, "an import the check does not run (it runs import openapi)"
		}
	}
	return sub, ""
}

// shellCommands parses a sh or console block into its simple commands
// (those of a && or | chain each on their own).
func shellCommands(b Block) ([]command, []Problem) {
	type chunk struct {
		line int
		text string
	}
	var chunks []chunk
	if b.Lang == "console" {
		lines := strings.Split(b.Text, "\n")
		for i := 0; i < len(lines); i++ {
			cmd, ok := strings.CutPrefix(lines[i], "$ ")
			if !ok {
				continue
			}
			start := i
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd += "\n" + lines[i]
			}
			chunks = append(chunks, chunk{b.Line + 1 + start, cmd})
		}
	} else {
		chunks = []chunk{{b.Line + 1, b.Text}}
	}
	var cmds []command
	var problems []Problem
	for _, ch := range chunks {
		f, err := syntax.NewParser().Parse(strings.NewReader(ch.text), "")
		if err != nil {
			line := ch.line
			var pe syntax.ParseError
			if errors.As(err, &pe) {
				line += int(pe.Pos.Line()) - 1
			}
			problems = append(problems, Problem{b.File, line, fmt.Sprintf("this shell block does not parse: %v. Fix it, or mark it <!-- snippet: skip REASON -->.", err)})
			continue
		}
		for _, st := range f.Stmts {
			cmds = append(cmds, stmtCommands(st, ch.line, ch.text)...)
		}
	}
	return cmds, problems
}

// stmtCommands gives the simple commands of one statement; base is the
// markdown line of the text's first line.
func stmtCommands(st *syntax.Stmt, base int, text string) []command {
	switch x := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		return append(stmtCommands(x.X, base, text), stmtCommands(x.Y, base, text)...)
	case *syntax.CallExpr:
		cmd := command{line: base + int(st.Pos().Line()) - 1}
		if off := st.Pos().Offset(); int(st.End().Offset()) <= len(text) {
			cmd.text = strings.Join(strings.Fields(text[off:st.End().Offset()]), " ")
		}
		for _, a := range x.Assigns {
			v := ""
			if a.Value != nil {
				v, _ = literal(a.Value, &cmd.dollar)
			}
			cmd.env = append(cmd.env, a.Name.Value+"="+v)
		}
		for _, w := range x.Args {
			s, _ := literal(w, &cmd.dollar)
			cmd.args = append(cmd.args, s)
		}
		for _, r := range st.Redirs {
			if r.Op == syntax.RdrIn && r.Word != nil {
				cmd.stdin, _ = literal(r.Word, &cmd.dollar)
			}
		}
		return []command{cmd}
	}
	return nil
}

// literal expands a word that has no $ in it; dollar is set when it has.
func literal(w *syntax.Word, dollar *bool) (string, error) {
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst:
			*dollar = true
		}
		return true
	})
	return expand.Literal(&expand.Config{Env: expand.ListEnviron()}, w)
}

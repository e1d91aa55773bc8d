package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolhost/toolhost/host"
)

// runPrompt renders one prompt as a client would (prompts/get), with its
// arguments given as name=value, and prints its messages: each after a
// line that names its role, as "[user]". --json prints the result as the
// client receives it. Arguments that do not fit the prompt, or a prompt
// that cannot be rendered, exit 1; a malformed command line exits 2.
func runPrompt(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prompt", "prompt [CONFIG] NAME [name=value ...] [--json]", stderr)
	asJSON := fs.Bool("json", false, "print the result as clients receive it, as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	// CONFIG and NAME come first; the arguments have an =. Of two words
	// without one, the first is CONFIG when it names a config (a path
	// that exists, or a file name of one), else the second is a
	// malformed argument of the prompt the first names.
	n := 0
	for n < len(pos) && n < 2 && !strings.Contains(pos[n], "=") {
		n++
	}
	if n == 2 && !looksLikeConfig(pos[0]) {
		n = 1
	}
	if n == 0 || n == 1 && namesConfigFile(pos[0]) {
		fs.Usage()
		fmt.Fprintln(stderr, "toolhost prompt: name the prompt to render, after the config when it is not ./tools.hcl, as in: toolhost prompt tools.hcl summarize topic=tests")
		return ExitUsage
	}
	name := pos[n-1]
	paths, ok := defaultConfigOr("prompt", pos[:n-1], name, stderr)
	if !ok {
		return ExitFailure
	}
	nvs, ok := splitNameValues("prompt", pos[n:], nil, stderr)
	if !ok {
		return ExitUsage
	}
	reg, promptCtx, done, ok := loadToRun(ctx, "prompt", paths, nil, stderr)
	if !ok {
		return ExitFailure
	}
	defer done()
	if !hasPrompt(reg, name) {
		fmt.Fprintf(stderr, "toolhost prompt: %s\n", noPrompt(reg, paths[0], name))
		return ExitFailure
	}
	promptArgs := make(map[string]string, len(nvs))
	for _, nv := range nvs {
		promptArgs[nv.name] = nv.value
	}
	res, err := reg.GetPrompt(promptCtx, name, promptArgs)
	if err != nil {
		fmt.Fprintf(stderr, "toolhost prompt: %s\n", err)
		return ExitFailure
	}
	if *asJSON {
		return printJSON("prompt", res, stdout, stderr)
	}
	for i, m := range res.Messages {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "[%s]\n%s\n", m.Role, strings.TrimRight(contentText(m.Content), "\n"))
	}
	return ExitOK
}

// hasPrompt reports whether the config declares a prompt of that name.
func hasPrompt(reg *host.Registry, name string) bool {
	for _, p := range reg.Prompts {
		if p.Name == name {
			return true
		}
	}
	return false
}

// noPrompt says that name is no prompt of the config: what it is instead,
// or the name close to it, and the prompts there are.
func noPrompt(reg *host.Registry, config, name string) string {
	if hint := otherKind(reg, config, name, "prompt"); hint != "" {
		return hint
	}
	names := make([]string, 0, len(reg.Prompts))
	for _, p := range reg.Prompts {
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return fmt.Sprintf("there is no prompt %q in %s; it declares no prompts", name, config)
	}
	return fmt.Sprintf("there is no prompt %q in %s%s; the prompts are: %s", name, config, closeHint(name, names), strings.Join(names, ", "))
}

// looksLikeConfig reports whether arg names a config rather than a
// prompt: a path that exists, or a file name of a config (.hcl, .json).
func looksLikeConfig(arg string) bool {
	if strings.HasSuffix(arg, ".hcl") || strings.HasSuffix(arg, ".json") {
		return true
	}
	_, err := os.Stat(arg)
	return err == nil
}

// namesConfigFile reports whether arg can only be a config, never a
// prompt's name: a file name ending in .hcl or .json, or a path (a name
// has no slash).
func namesConfigFile(arg string) bool {
	return strings.HasSuffix(arg, ".hcl") || strings.HasSuffix(arg, ".json") || strings.ContainsAny(arg, `/\`)
}

package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/suggest"
)

// addGroupFlag adds serve's --group.
func addGroupFlag(fs *flag.FlagSet) *string {
	return fs.String("group", "", "serve only the tools, resources and prompts of this group of the config (its group block): over stdio, and with --listen at /mcp and /sse, where the group's scopes are then required")
}

// groupOptions checks serve's --group against the config loaded, and
// returns the server option that serves it: a name the config has no group
// of is a usage error, with the closest name. A config that did not load
// (serve waits for a valid one) is not checked: the group then serves
// nothing until a reload brings it.
func groupOptions(name string, reg *host.Registry, stderr io.Writer) ([]host.ServerOption, int) {
	if name == "" {
		return nil, ExitOK
	}
	if reg.Placeholder() || reg.Config.Group(name) != nil {
		return []host.ServerOption{host.ServeGroup(name)}, ExitOK
	}
	names := reg.Config.GroupNames()
	list := "it has none; declare one with group \"NAME\" { tools = [...] }"
	if len(names) > 0 {
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = strconv.Quote(n)
		}
		list = "its groups are " + strings.Join(q, ", ")
	}
	fmt.Fprintf(stderr, "toolhost serve: --group %q: the config has no such group.%s (%s)\n", name, suggest.Hint(name, names), list)
	return nil, ExitUsage
}

// inspectScopes prints, for inspect, the scopes of what has them and the
// config's groups, with where they apply; nothing when there are none.
func inspectScopes(w io.Writer, cfg *thcl.Config) {
	var lines []string
	for _, it := range cfg.ScopedItems() {
		lines = append(lines, fmt.Sprintf("  %s %s: %s", strings.ReplaceAll(it.Kind, "_", " "), it.Name, strings.Join(it.Scopes, " ")))
	}
	if len(lines) == 0 && len(cfg.Groups) == 0 {
		return
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "\nScopes (a caller over HTTP sees and uses these only with a token that grants them)\n%s\n", strings.Join(lines, "\n"))
	}
	if len(cfg.Groups) > 0 {
		fmt.Fprintf(w, "\n%s (each at /mcp/NAME and /sse/NAME over HTTP, or alone with serve --group NAME)\n", countTitle(len(cfg.Groups), "group"))
		for _, g := range cfg.Groups {
			head := "  " + g.Name
			if g.Description != "" {
				head += ": " + oneLine(g.Description)
			}
			fmt.Fprintln(w, head)
			for _, m := range []struct {
				what  string
				names []string
			}{{"tools", g.Tools}, {"resources", g.Resources}, {"prompts", g.Prompts}, {"scopes", g.Scopes}} {
				if len(m.names) > 0 {
					fmt.Fprintf(w, "    %s: %s\n", m.what, strings.Join(m.names, ", "))
				}
			}
		}
	}
	note := "Scopes apply over HTTP, to the verified token's caller (server { auth { ... } }); without an auth block, what has scopes is hidden there. stdio has no caller: the local user owns the process, and sees everything."
	fmt.Fprintln(w, "\n"+note)
}

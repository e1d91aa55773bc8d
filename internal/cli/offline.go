package cli

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
)

// addOfflineFlag adds --offline to the flags of serve, call and inspect.
func addOfflineFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("offline", false, "answer the tools that call the network (http, and sql on postgres or mysql) from the recorded responses of their example blocks instead of calling their upstreams; exec tools still run, unless a tool says offline = \"example\"")
}

// loadOptions are the options of a load, offline or not.
func loadOptions(offline bool) *thcl.Options {
	if !offline {
		return nil
	}
	return &thcl.Options{Offline: true}
}

// logOffline logs, once serve has loaded reg offline, that the tools that
// call the network answer from their examples, and how many can.
func logOffline(logger *slog.Logger, reg *host.Registry) {
	s, ok := reg.Offline()
	if !ok {
		return
	}
	logger.Warn("offline: http tools answer from their recorded examples, not from their upstreams",
		"with_examples", len(s.Examples)-len(s.Missing),
		"without_examples", len(s.Missing),
		"missing", strings.Join(s.Missing, ","),
		"running", len(s.Run))
}

// offlineBanner writes what inspect --offline shows before the tools:
// that toolhost runs offline, and how each tool that does not run
// answers.
func offlineBanner(w io.Writer, reg *host.Registry) {
	s, ok := reg.Offline()
	if !ok {
		return
	}
	fmt.Fprintln(w, "OFFLINE (--offline): tools that call the network answer from the recorded responses of their examples, not from their upstreams; every such result carries _meta \""+host.OfflineMetaKey+"\".")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, name := range s.Examples {
		examples, _ := reg.OfflineExamples(name)
		if len(examples) == 0 {
			row(tw, "  ", name, "no example with a recorded response: its calls fail")
			continue
		}
		row(tw, "  ", name, "answers from "+plural(len(examples), "example")+": "+strings.Join(quoted(examples), ", "))
	}
	tw.Flush()
	if n := len(s.Run); n > 0 {
		fmt.Fprintf(w, "  %s run as always: %s\n", plural(n, "other tool"), strings.Join(s.Run, ", "))
	}
	fmt.Fprintln(w)
}

// quoted quotes each of names.
func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// offlineNote says on stderr, for toolhost call --offline, that res was
// answered from an example, and which: stdout has the result as a live
// call prints it.
func offlineNote(stderr io.Writer, tool string, res *mcp.CallToolResult) {
	m, ok := res.Meta[host.OfflineMetaKey].(map[string]any)
	if !ok {
		return
	}
	how := "its arguments are the call's"
	if matched, _ := m["argumentsMatched"].(bool); !matched {
		how = "the tool's first: no example has the call's arguments"
	}
	fmt.Fprintf(stderr, "toolhost call: offline: %s answered from the recorded response of its example %q (%s), not live\n", tool, m["example"], how)
}

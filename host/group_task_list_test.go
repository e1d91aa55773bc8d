package host

import (
	"strings"
	"testing"
)

// TestGroupListWithTaskTool: serve --group lists only the group's tools,
// also when a tool of the config has task support.
func TestGroupListWithTaskTool(t *testing.T) {
	const src = `
tool "status" {
  task = "optional"
  template { text = "ok" }
}
tool "restart" {
  template { text = "done" }
}
group "open" {
  tools = ["status"]
}
`
	p := startStdio(t, loadSource(t, src), ServeGroup("open"))
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	r := p.next()
	if strings.Contains(string(r.Result), `"restart"`) || !strings.Contains(string(r.Result), `"taskSupport":"optional"`) {
		t.Fatalf("serve --group open lists restart, or status without its task support: %s", r.Result)
	}
}

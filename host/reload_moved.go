package host

import (
	"strings"
	"time"

	thcl "github.com/toolhost/toolhost/hcl"
)

// A reload after an edit that changes a tool's length loads twice (see
// thcl.Options.TakeMoved). The first load takes the tools of the pieces
// the edit moved from the config in service as they are, and parses and
// decodes only what the edit changed: it is applied at once, and clients
// hear of the change (tools/list_changed) after about what parsing the
// edit costs. Its moved tools are the very tools in service before, with
// the source ranges of the file before the edit: until the second load,
// right after, has parsed them where they are and gone into service, a
// call-time error of one of them names the line the tool was on, as every
// call's did while a reload was under way before the edit was served.

// settle loads the config again after a reload that took moved pieces
// (moved, now in service), without taking them, and puts the new registry
// in service: the same tools, with their source ranges where the tools
// are. Clients are not told: nothing they see changes. When the files
// changed since, or the load finds anything to say, moved stays in
// service; the watcher's next reload, due for the change, replaces it.
func (r *Reloader) settle(moved *Registry) {
	if r.beforeSettle != nil {
		r.beforeSettle()
	}
	start := time.Now()
	var opts thcl.Options
	if r.Options != nil {
		opts = *r.Options
	}
	opts.Previous, opts.TakeMoved = moved.Config, false
	reg, diags := loadAfter(r.Paths, &opts, moved)
	sum, _, ok := loadedSum(reg)
	if len(diags) > 0 || !ok || sum != r.lastSum {
		reg.Close()
		r.logger().Debug("the tools an edit moved were not parsed again: the files changed since, or their load has diagnostics; the next reload takes them", "diagnostics", len(diags))
		return
	}
	old, ch := r.Server.Apply(reg)
	if old != nil {
		old.Retire()
	}
	if ch.any() {
		// Not expected: the same bytes, loaded twice.
		r.logger().Warn("the second load of a reload changed what the first put in service", "tools_changed", strings.Join(ch.ToolsChanged, ","),
			"tools_redefined", strings.Join(ch.ToolsRedefined, ","), "tools_added", strings.Join(ch.ToolsAdded, ","), "tools_removed", strings.Join(ch.ToolsRemoved, ","))
	}
	r.logger().Debug("parsed the tools an edit moved where they are now", "duration", time.Since(start))
}

// any reports whether ch changed anything.
func (ch Changes) any() bool {
	return len(ch.ToolsAdded)+len(ch.ToolsRemoved)+len(ch.ToolsChanged)+len(ch.ToolsRedefined)+len(ch.ResourcesRedefined)+len(ch.PromptsRedefined) > 0 ||
		ch.ResourcesChanged || ch.PromptsChanged || ch.ServerChanged
}

package host

import (
	"context"
	"strings"
	"sync"
	"time"

	thcl "github.com/toolhost/toolhost/hcl"
)

// A reload after an edit that changes a tool's length loads twice (see
// thcl.Options.TakeMoved). The first load takes the tools of the pieces
// the edit moved from the config in service as they are, and parses and
// decodes only what the edit changed: it is applied at once, and clients
// hear of the change (tools/list_changed) after about what parsing the
// edit costs. Its moved tools keep the source ranges of where they were,
// so their calls wait (Server.useTool) until the second load, right after,
// has parsed them where they are now and gone into service. The calls of
// every other tool, the edited one included, run at once.

// moving is what a registry whose config took moved pieces holds until
// the load after it has parsed them where they are (see settled).
type moving struct {
	done chan struct{}
	once sync.Once
}

// newMoving returns the moving of a registry of cfg: nil when cfg took no
// moved piece.
func newMoving(cfg *thcl.Config) *moving {
	if !cfg.Moved("") {
		return nil
	}
	return &moving{done: make(chan struct{})}
}

// movedWait returns what a call of the tool name must wait for before it
// runs on r: nil, or a channel closed once r's moved tools have been
// parsed where they are now (see settled).
func (r *Registry) movedWait(name string) <-chan struct{} {
	if r.moving == nil || !r.Config.Moved(name) {
		return nil
	}
	select {
	case <-r.moving.done:
		return nil
	default:
		return r.moving.done
	}
}

// settled lets the calls that wait on r's moved tools go (see movedWait):
// a registry in service with them parsed where they are has replaced r,
// or r was retired, or the load after it will not replace it.
func (r *Registry) settled() {
	if r.moving != nil {
		r.moving.once.Do(func() { close(r.moving.done) })
	}
}

// useTool is use for a call of the tool name: a call of a tool a reload
// took from a piece an edit moved waits until the reload has put that
// tool, parsed where it is now, in service (or until ctx ends), so that
// no call-time diagnostic points at where the tool was.
func (s *Server) useTool(ctx context.Context, name string) *Registry {
	for {
		reg := s.use()
		wait := reg.movedWait(name)
		if wait == nil {
			return reg
		}
		if s.onMovedWait != nil {
			s.onMovedWait()
		}
		select {
		case <-wait:
			reg.release()
		case <-ctx.Done():
			return reg
		}
	}
}

// settle loads the config again after a reload that took moved pieces
// (moved, now in service), without taking them, and puts the new registry
// in service: the same tools, with their source ranges where the tools
// are. Clients are not told: nothing they see changes. When the files
// changed since, or the load finds anything to say, moved stays in service
// and its calls go on; the watcher's next reload, due for the change,
// replaces it.
func (r *Reloader) settle(moved *Registry) {
	defer moved.settled()
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

package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/internal/parallel"
)

// Changes says what an Apply changed, by name.
type Changes struct {
	// ToolsAdded, ToolsRemoved and ToolsChanged are what clients see
	// change in tools/list.
	ToolsAdded, ToolsRemoved, ToolsChanged []string
	// ToolsRedefined are the tools that clients see unchanged but whose
	// block in the config changed: they now run differently (a new
	// command, URL, template or result mapping). Clients are not notified,
	// having nothing to fetch again.
	ToolsRedefined []string
	// ResourcesChanged and PromptsChanged say whether what clients list
	// changed; ResourcesRedefined and PromptsRedefined, like
	// ToolsRedefined, name the resources, resource templates and prompts
	// listed as before whose blocks changed (a prompt's messages, the file
	// a resource is read from).
	ResourcesChanged, PromptsChanged     bool
	ResourcesRedefined, PromptsRedefined []string
	// ServerChanged says the server block changed: its network policy
	// and call limits apply to the new registry, and its name, version
	// and instructions to the initialize answers from now on.
	ServerChanged bool
}

// Apply puts reg in service. Definitions that are new or changed are
// (re)registered and removed ones unregistered, so that connected clients get
// one list_changed notification per kind that changed. Calls already running
// finish on the registry they started with; the old registry is returned for
// the caller to retire once they are done.
func (s *Server) Apply(reg *Registry) (old *Registry, ch Changes) {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	if prev := s.current.Load(); prev != nil && cap(prev.slots) == cap(reg.slots) {
		// The same max_concurrent_calls: the new registry shares the
		// slots of the one in service, where the calls still running
		// hold theirs, so that a reload does not let as many again start
		// beside them. A new limit takes a new set of slots: calls
		// running under the old one finish as they are.
		reg.slots = prev.slots
	}
	// The watches of the new registry's files are set up before it goes
	// into service, and those it no longer needs dropped after.
	var watches *resourcePlan
	if s.resWatch != nil {
		watches = s.resWatch.prepare(reg)
	}
	old = s.current.Swap(reg)
	if watches != nil {
		s.resWatch.commit(watches)
	}
	if old != nil {
		if impl := identity(reg); impl.Name != s.startInfo.Name || impl.Title != s.startInfo.Title || impl.Version != s.startInfo.Version {
			s.renamed.Store(&impl)
		} else {
			s.renamed.Store(nil)
		}
	}

	// What the blocks were and are, to find definitions that changed
	// behind a declaration clients see unchanged (none at the first Apply).
	var defs *blockChanges
	if old != nil {
		defs = changesBetween(old, reg)
		// A server block added or removed changes the server too (its
		// defaults take the place of what it said, or the reverse).
		_, had := defs.def(false, blockKey{kind: "server"})
		_, has := defs.def(true, blockKey{kind: "server"})
		ch.ServerChanged = had != has || defs.redefined(blockKey{kind: "server"})
	}
	s.applyTools(old, reg, defs, &ch)
	s.applyResources(old, reg, defs, &ch)
	s.applyPrompts(old, reg, defs, &ch)
	s.noteAccessChanges(old, reg) // scopes.go
	if old != nil && s.authApplied != nil {
		s.authApplied(old, reg)
	}
	return old, ch
}

// applyTools registers the tools of reg that are new or changed since old
// (nil at the first Apply), unregisters those removed, and records it all
// in ch.
func (s *Server) applyTools(old, reg *Registry, defs *blockChanges, ch *Changes) {
	var oldTools map[string]*mcp.Tool // by name, made for the first tool not taken over
	var add []*mcp.Tool
	for _, t := range reg.Tools {
		if old != nil && old.tools[t.Name] == reg.tools[t.Name] {
			// Taken over from old, its block unchanged at the same place
			// (see compile): declaration and definition are old's.
			continue
		}
		if oldTools == nil && old != nil {
			oldTools = make(map[string]*mcp.Tool, len(old.Tools))
			for _, t := range old.Tools {
				oldTools[t.Name] = t
			}
		}
		prev, existed := oldTools[t.Name]
		switch {
		case !existed:
			ch.ToolsAdded = append(ch.ToolsAdded, t.Name)
		case !sameTool(prev, t):
			ch.ToolsChanged = append(ch.ToolsChanged, t.Name)
		default:
			// The SDK's registration holds only the declaration: calls
			// find the definition in the registry in service.
			if defs.redefined(blockKey{"tool", t.Name}) {
				ch.ToolsRedefined = append(ch.ToolsRedefined, t.Name)
			}
			continue
		}
		add = append(add, t)
	}
	s.addTools(add, old == nil)
	if len(add) >= releaseAfter {
		// Registration leaves garbage for every tool (see addTools), on
		// top of the compile's: return it to the OS soon rather than
		// over minutes, so that a large config does not keep the peak of
		// its load as its resident size. Later, and in the background, so
		// that it delays neither the first answer nor the reload.
		time.AfterFunc(releaseDelay, debug.FreeOSMemory)
	}
	if old != nil {
		for _, t := range old.Tools {
			if _, kept := reg.tools[t.Name]; !kept {
				ch.ToolsRemoved = append(ch.ToolsRemoved, t.Name)
			}
		}
	}
	sort.Strings(ch.ToolsRemoved)
	if len(ch.ToolsRemoved) > 0 {
		s.mcp.RemoveTools(ch.ToolsRemoved...)
		s.forgetStandIns(ch.ToolsRemoved)
	}
}

// applyResources registers the resources and resource templates of reg
// again when they changed since old (nil at the first Apply), tells the
// subscribers of those whose content may have changed, and records it in
// ch.
func (s *Server) applyResources(old, reg *Registry, defs *blockChanges, ch *Changes) {
	var oldRes []*mcp.Resource
	var oldTmpl []*mcp.ResourceTemplate
	if old != nil {
		oldRes, oldTmpl = old.Resources, old.Templates
	}
	if changedJSON(old == nil, oldRes, reg.Resources) || changedJSON(old == nil, oldTmpl, reg.Templates) {
		ch.ResourcesChanged = true
		var uris, tmpls []string
		for _, r := range oldRes {
			uris = append(uris, r.URI)
		}
		for _, t := range oldTmpl {
			tmpls = append(tmpls, t.URITemplate)
		}
		if len(uris) > 0 {
			s.mcp.RemoveResources(uris...)
		}
		if len(tmpls) > 0 {
			s.mcp.RemoveResourceTemplates(tmpls...)
		}
		for _, r := range reg.Resources {
			s.mcp.AddResource(r, s.resourceHandler)
		}
		for _, t := range reg.Templates {
			s.mcp.AddResourceTemplate(t, s.resourceHandler)
		}
	}
	if old != nil {
		// Subscribers of a resource whose declaration or block changed
		// (the file it is read from, say) are told, and so are those of the
		// URIs a changed resource template serves; the SDK sends only to
		// the sessions subscribed to each URI.
		for _, uri := range s.updatedResources(old, reg, defs) {
			_ = s.mcp.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
		ch.ResourcesRedefined = redefinedDecls(defs, "resource", oldRes, reg.Resources, func(r *mcp.Resource) string { return r.Name })
		ch.ResourcesRedefined = append(ch.ResourcesRedefined, redefinedDecls(defs, "resource_template", oldTmpl, reg.Templates, func(t *mcp.ResourceTemplate) string { return t.Name })...)
	}
}

// applyPrompts registers the prompts of reg again when they changed since
// old (nil at the first Apply), and records it in ch.
func (s *Server) applyPrompts(old, reg *Registry, defs *blockChanges, ch *Changes) {
	var oldPrompts []*mcp.Prompt
	if old != nil {
		oldPrompts = old.Prompts
		ch.PromptsRedefined = redefinedDecls(defs, "prompt", oldPrompts, reg.Prompts, func(p *mcp.Prompt) string { return p.Name })
	}
	if changedJSON(old == nil, oldPrompts, reg.Prompts) {
		ch.PromptsChanged = true
		var names []string
		for _, p := range oldPrompts {
			names = append(names, p.Name)
		}
		if len(names) > 0 {
			s.mcp.RemovePrompts(names...)
		}
		for _, p := range reg.Prompts {
			s.mcp.AddPrompt(p, s.promptHandler)
		}
	}
}

// updatedResources lists the URIs whose content a reload from old to reg
// may have changed: a resource kept under the same URI whose declaration
// or block changed, and the subscribed URIs served by a resource template
// kept under the same name whose block changed (those the template served
// as it was, or serves as it is).
func (s *Server) updatedResources(old, reg *Registry, defs *blockChanges) []string {
	var uris []string
	before := map[string]*mcp.Resource{}
	for _, r := range old.Resources {
		before[r.URI] = r
	}
	// The block comparison covers native syntax only; the file and the
	// directory are compared too, for configs in HCL's JSON syntax.
	for _, r := range reg.Resources {
		if prev, ok := before[r.URI]; ok && (!sameJSON(prev, r) || defs.redefined(blockKey{"resource", r.Name}) || old.resourceSource(r.URI) != reg.resourceSource(r.URI)) {
			uris = append(uris, r.URI)
		}
	}
	oldTmpl := map[string]*templateDir{}
	for _, t := range old.templates {
		oldTmpl[t.decl.Name] = t
	}
	var changed []*templateDir
	for _, t := range reg.templates {
		prev, ok := oldTmpl[t.decl.Name]
		if !ok {
			continue
		}
		if prev.decl.Dir != t.decl.Dir || defs.redefined(blockKey{"resource_template", t.decl.Name}) {
			changed = append(changed, prev, t)
		}
	}
	if len(changed) == 0 {
		return uris
	}
	for _, uri := range s.subscribedURIs() {
		if slices.ContainsFunc(changed, func(t *templateDir) bool { return t.matches(uri) }) && !slices.Contains(uris, uri) {
			uris = append(uris, uri)
		}
	}
	return uris
}

// redefinedDecls names the declarations of a kind of block that clients see
// the same in before and after but whose blocks changed.
func redefinedDecls[T any](defs *blockChanges, kind string, before, after []T, name func(T) string) []string {
	prev := make(map[string]T, len(before))
	for _, d := range before {
		prev[name(d)] = d
	}
	var names []string
	for _, d := range after {
		n := name(d)
		if p, ok := prev[n]; ok && sameJSON(p, d) && defs.redefined(blockKey{kind, n}) {
			names = append(names, n)
		}
	}
	return names
}

// addTools registers tools with the SDK, on every free processor: for
// most, a stand-in, once (see registrations, server_declared.go).
func (s *Server) addTools(tools []*mcp.Tool, first bool) {
	if first {
		tightenGC(len(tools))
	}
	add := s.registrations(tools)
	parallel.For(len(add), addToolsPerWorker, func(i int) { s.addTool(add[i]) })
}

// addToolsPerWorker is the fewest tools a goroutine of addTools registers.
// The SDK's AddTool is safe for concurrent use and does most of its work,
// re-encoding and decoding the schemas, before it takes its lock, and it
// lists tools sorted by name whatever the order they came in. A large
// config registers faster so (BenchmarkApply measures it, the GC's share
// aside); for a config of a few tools, as examples/tools.hcl, the gain is
// within the noise of a start.
const addToolsPerWorker = 2

// addTool registers one tool. The compiler checks every schema before it
// gets here; should the SDK still refuse one (it panics), the tool is left
// out and the error logged, so that neither a start nor a reload crashes.
func (s *Server) addTool(t *mcp.Tool) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("tool left out: the SDK refused its definition; please report this as a toolhost bug", "tool", t.Name, "error", fmt.Sprint(r))
		}
	}()
	s.mcp.AddTool(t, s.toolHandler)
}

// releaseAfter is the number of tools registered at once from which Apply
// returns freed memory to the OS.
const releaseAfter = 100

// releaseDelay is how long after such an Apply the memory is returned.
const releaseDelay = 250 * time.Millisecond

// sameTool compares two tool definitions as clients see them: every field
// tools/list sends (a field left out here would keep a stale declaration
// in service, since an unchanged tool is not registered again). Their
// schemas are JSON already, so this is cheap.
func sameTool(a, b *mcp.Tool) bool {
	if a == b {
		return true // taken from the registry in service (see compile)
	}
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description &&
		bytes.Equal(a.InputSchema.(json.RawMessage), b.InputSchema.(json.RawMessage)) &&
		rawEqual(a.OutputSchema, b.OutputSchema) && sameJSON(a.Annotations, b.Annotations) &&
		sameJSON(a.Icons, b.Icons) && sameJSON(a.Meta, b.Meta)
}

func rawEqual(a, b any) bool {
	ra, _ := a.(json.RawMessage)
	rb, _ := b.(json.RawMessage)
	return bytes.Equal(ra, rb)
}

// changedJSON reports whether the declarations in b differ from those in
// a. At the first Apply (first true) there is nothing to compare: any
// declaration is a change, and the start does not pay for encoding them.
func changedJSON[T any](first bool, a, b []T) bool {
	if first {
		return len(b) > 0
	}
	return !sameJSON(a, b)
}

func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && reflect.DeepEqual(ja, jb)
}

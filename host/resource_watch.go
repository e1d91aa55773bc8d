package host

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxResourceWatchSlots is the most watches one server holds for the files
// behind its resources and resource templates. A watch is one directory
// (inotify, Windows); on macOS and the BSDs (kqueue) every entry of a
// watched directory costs an open file too, and counts. Directories past
// the cap are not watched: their files are served as before, but their
// changes send no notifications/resources/updated (a warning says so).
const maxResourceWatchSlots = 1000

// resourceWatch watches the files behind the resource blocks of the
// registry in service and the directories behind its resource_template
// blocks, and tells the subscribers of a URI when its file changes. It
// watches directories, not files, and matches events by name, so that a
// file saved by rename, or deleted and made again, is still seen. The
// watches follow the registry: Apply builds those of a new registry aside
// (prepare), swaps them in with it and drops those left over (commit).
//
// One goroutine only reads the watcher's events, and takes no lock that
// is held while the watcher is changed: on Windows, adding a directory
// waits for the watcher's reader, which waits for its events to be read.
type resourceWatch struct {
	s      *Server
	w      *fsnotify.Watcher
	logger *slog.Logger

	// plan is what is watched, for the event reader.
	plan atomic.Pointer[resourcePlan]
	// added holds the directories w watches, as they were when added,
	// and warned the cap's warning last logged, so that a reload that
	// finds the same directories past it does not repeat it. Both are
	// used under the Server's applyMu.
	added  map[string]os.FileInfo
	warned string
	// held (see flush) is used by the flushes, one at a time.
	held map[string]heldName
}

// resourcePlan is what to watch for one registry.
type resourcePlan struct {
	// dirs are the directories to watch, by real path (symlinks resolved:
	// fsnotify names events by the path watched).
	dirs []string
	// files maps a resource's file (pathKey of its real directory and its
	// name) to the URIs of the resources read from it.
	files map[string][]string
	// tdirs maps a watched directory of a resource template (pathKey) to
	// the templates that serve it.
	tdirs map[string][]templateWatch
	// links are the resources' files that are symlinks, by pathKey: an
	// event on one may re-point it, and what it leads to is watched.
	links map[string]bool
	// dirFiles maps a directory of resources' files (pathKey) to their
	// URIs.
	dirFiles map[string][]string
	// roots are the directories of resources' files and the templates'
	// own directories that are watched, by pathKey: their parents are
	// watched too, for them to be seen deleted, made again or replaced.
	roots map[string]bool
	// skipped counts the directories left unwatched past the cap.
	skipped int
}

// templateWatch is a directory a resource template serves: its root, or
// (for a {+path} template) a directory below, rel being its
// slash-separated path under the root ("" for the root).
type templateWatch struct {
	t   *templateDir
	rel string
}

// startResourceWatch starts watching the files behind the resources of
// the registry in service, and returns a function that stops it and waits
// until it has.
func (r *Reloader) startResourceWatch(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := r.Server.watchResources(ctx, r.logger(), r.Debounce); err != nil {
			r.logger().Warn("resource files are not watched: subscribers hear of changes to the resource blocks only", "error", err)
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// ResourceDebounce is how long the watch of resource files waits after
// the last event on a file before it tells subscribers (when Reloader's
// Debounce is 0). Longer than the config's DefaultDebounce: a reader of a
// resource reads whatever the file holds, with no parse to find a file
// read mid-save, so the watch waits longer for the writer to finish.
const ResourceDebounce = 100 * time.Millisecond

// watchResources watches the resources' files until ctx ends (see
// resourceWatch). Bursts of events are debounced, as for the config.
func (s *Server) watchResources(ctx context.Context, logger *slog.Logger, debounce time.Duration) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	rw := &resourceWatch{s: s, w: w, logger: logger, added: map[string]os.FileInfo{}, held: map[string]heldName{}}
	var work sync.WaitGroup // the first watch and the flushes
	defer func() {
		// Closed first: a directory being added (by Apply, holding
		// applyMu) then fails at once, instead of waiting for events to
		// be read.
		_ = w.Close()
		work.Wait()
		s.applyMu.Lock()
		if s.resWatch == rw {
			s.resWatch = nil
		}
		s.applyMu.Unlock()
	}()
	work.Add(1)
	go func() {
		defer work.Done()
		s.applyMu.Lock()
		defer s.applyMu.Unlock()
		if s.resWatch == nil && ctx.Err() == nil {
			s.resWatch = rw
			rw.commit(rw.prepare(s.Registry()))
		}
	}()
	if debounce <= 0 {
		debounce = ResourceDebounce
	}
	// pending holds the names that had events since the last flush, by
	// pathKey. again brings the wait a flush asks for (names held).
	pending := map[string]string{}
	again := make(chan time.Duration, 1)
	// One flush at a time, in order, off this goroutine: a batch waits
	// here, gathering more names, while the last one is flushed.
	batches := make(chan map[string]string)
	work.Add(1)
	go func() {
		defer work.Done()
		for batch := range batches {
			if wait := rw.flush(ctx, batch); wait > 0 {
				select {
				case again <- wait:
				default:
				}
			}
		}
	}()
	defer close(batches)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var burstStart time.Time
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Op&^fsnotify.Chmod == 0 || !rw.concerns(ev.Name) {
				continue // a change of mode or owner, or another file
			}
			pending[pathKey(ev.Name)] = ev.Name
			debounceEvent(&burstStart, timer, debounce)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			logger.Warn("resource file watcher error", "error", err)
		case d := <-again:
			if burstStart.IsZero() {
				timer.Reset(d)
			} // else the burst's flush looks at the names held too
		case <-timer.C:
			select {
			case batches <- pending:
				burstStart = time.Time{}
				pending = map[string]string{}
			default:
				timer.Reset(debounce) // the last flush still runs
			}
		}
	}
}

// debounceEvent restarts timer for an event of the burst that started at
// *start (zero: this event starts it). Each event restarts the wait, but a
// burst that goes on (an editor saving continuously) is flushed at least
// every MaxDebounce.
func debounceEvent(start *time.Time, timer *time.Timer, debounce time.Duration) {
	now := time.Now()
	if start.IsZero() {
		*start = now
	}
	if now.Sub(*start)+debounce <= MaxDebounce {
		timer.Reset(debounce)
	}
}

// heldName is a name found missing or empty at a flush: an editor may be
// in the middle of a save. Its subscribers are told once it changes again,
// or once it has stayed so for EmptyGrace.
type heldName struct {
	name  string
	since time.Time
	size  int64 // -1: missing
}

// concerns reports whether an event on name may change a resource: a
// resource's file, or anything in a directory of a template.
func (rw *resourceWatch) concerns(name string) bool {
	p := rw.plan.Load()
	if p == nil {
		return false
	}
	key := pathKey(name)
	if _, ok := p.files[key]; ok {
		return true
	}
	if _, ok := p.tdirs[pathKey(filepath.Dir(name))]; ok {
		return true
	}
	_, ok := p.tdirs[key] // a watched directory itself, removed
	return ok || p.roots[key]
}

// flush tells the subscribers of the URIs whose files had events (pending)
// that they changed, and rewatches when a directory of a template came or
// went. A name found missing or empty is held for EmptyGrace: a save by
// truncate and write, or by delete and create, is one change, not two. It
// returns when to flush again for the names held, or 0.
func (rw *resourceWatch) flush(ctx context.Context, pending map[string]string) time.Duration {
	now := time.Now()
	for key, h := range rw.held {
		if _, ok := pending[key]; !ok {
			pending[key] = h.name
		}
	}
	p := rw.plan.Load()
	if p == nil {
		return 0
	}
	subscribed := rw.s.subscribedURIs()
	idx := indexSubscribed(p, subscribed)
	replan := false
	uris := map[string]bool{}
	for key, name := range pending {
		if rw.dirChanged(p, idx, key, name, uris) {
			replan = true
			continue
		}
		rw.fileChanged(p, idx, key, name, now, uris)
		if _, isFile := p.files[key]; isFile && (p.links[key] || isSymlink(name)) {
			replan = true // a link re-pointed: watch where it leads now
		}
	}
	if replan {
		// Flushes run off the event reader's goroutine: Apply may hold
		// applyMu while it adds a directory, which on Windows waits for
		// events to be read.
		rw.s.applyMu.Lock()
		if rw.s.resWatch == rw && ctx.Err() == nil {
			rw.commit(rw.prepare(rw.s.Registry()))
		}
		rw.s.applyMu.Unlock()
	}
	for _, u := range slices.Sorted(maps.Keys(uris)) {
		if _, ok := slices.BinarySearch(subscribed, u); !ok {
			continue // sorted, as subscribedURIs gives them
		}
		rw.logger.Debug("resource file changed; telling its subscribers", "uri", u)
		_ = rw.s.mcp.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: u})
	}
	var wait time.Duration
	for _, h := range rw.held {
		if d := max(EmptyGrace-now.Sub(h.since), time.Millisecond); wait == 0 || d < wait {
			wait = d
		}
	}
	return wait
}

// dirChanged handles an event on name when it is a directory of resources:
// one watched (deleted, say), a resource's directory or a template's own
// (made again, or replaced), or one made in a {+path} template's tree. The
// subscribers of the files in it, and under it, are told (into uris), and
// it returns true: the directories to watch are to be worked out again.
func (rw *resourceWatch) dirChanged(p *resourcePlan, idx map[*templateDir]map[string][]string, key, name string, uris map[string]bool) bool {
	parents := p.tdirs[pathKey(filepath.Dir(name))]
	selves, watched := p.tdirs[key]
	if !watched && !p.roots[key] {
		if !slices.ContainsFunc(parents, func(tw templateWatch) bool { return tw.t.decl.Reserved }) {
			return false
		}
		if info, err := os.Stat(name); err != nil || !info.IsDir() {
			return false
		}
	}
	for _, u := range p.dirFiles[key] {
		uris[u] = true
	}
	// The names in it, as each template that serves it sees it.
	under := slices.Clone(selves)
	for _, tw := range parents {
		under = append(under, templateWatch{t: tw.t, rel: joinRel(tw.rel, filepath.Base(name))})
	}
	for _, tw := range under {
		for n, us := range idx[tw.t] {
			if tw.rel == "" || strings.HasPrefix(n, pathKey(tw.rel)+"/") {
				for _, u := range us {
					uris[u] = true
				}
			}
		}
	}
	// Its files held are told now, as the directory's.
	delete(rw.held, key)
	for k := range rw.held {
		if strings.HasPrefix(k, key+string(filepath.Separator)) {
			delete(rw.held, k)
		}
	}
	return true
}

// fileChanged handles an event on the file name: the subscribers of the
// resources read from it, and of the templates' URIs that stand for it,
// are told (into uris), unless it is missing or empty: then they are told
// once it has changed again, or once it has stayed so for EmptyGrace.
func (rw *resourceWatch) fileChanged(p *resourcePlan, idx map[*templateDir]map[string][]string, key, name string, now time.Time, uris map[string]bool) {
	found := slices.Clone(p.files[key])
	for _, tw := range p.tdirs[pathKey(filepath.Dir(name))] {
		found = append(found, idx[tw.t][pathKey(joinRel(tw.rel, filepath.Base(name)))]...)
	}
	if len(found) == 0 {
		delete(rw.held, key)
		return
	}
	size := int64(-1)
	if info, err := os.Stat(name); err == nil {
		size = info.Size()
	}
	h, wasHeld := rw.held[key]
	switch {
	case wasHeld && size == h.size && now.Sub(h.since) < EmptyGrace:
		return // still missing, or still empty
	case size <= 0 && !wasHeld:
		rw.held[key] = heldName{name: name, since: now, size: size}
		return
	}
	delete(rw.held, key)
	for _, u := range found {
		uris[u] = true
	}
}

// indexSubscribed maps each template of p to the names its subscribed
// URIs stand for, by pathKey, and those to the URIs: a flush then finds
// the subscribers of a file at once, whatever the number of files and of
// subscriptions.
func indexSubscribed(p *resourcePlan, subscribed []string) map[*templateDir]map[string][]string {
	idx := map[*templateDir]map[string][]string{}
	for _, tws := range p.tdirs {
		for _, tw := range tws {
			if _, ok := idx[tw.t]; ok {
				continue
			}
			names := map[string][]string{}
			for _, u := range subscribed {
				if n, ok := tw.t.name(u); ok {
					names[pathKey(n)] = append(names[pathKey(n)], u)
				}
			}
			idx[tw.t] = names
		}
	}
	return idx
}

// joinRel is the slash-separated name of base in the directory rel of a
// template ("" for its root).
func joinRel(rel, base string) string {
	if rel == "" {
		return base
	}
	return rel + "/" + base
}

// prepare works out what to watch for reg and starts watching the
// directories it needs that are not watched yet; commit then puts the
// plan in service and stops watching the rest. The caller holds applyMu.
func (rw *resourceWatch) prepare(reg *Registry) *resourcePlan {
	p := planResourceWatch(reg)
	if p.skipped > 0 {
		msg := "resource directories past the cap are not watched: their files are served, but their changes send no notifications/resources/updated (unwatched_dirs counts those found; the directories below them are not looked for)"
		if key := strings.Join(p.dirs, "\x00"); key != rw.warned {
			rw.warned = key
			rw.logger.Warn(msg, "max_watches", maxResourceWatchSlots, "unwatched_dirs", p.skipped)
		}
	}
	watched := map[string]bool{}
	for _, d := range rw.w.WatchList() {
		watched[d] = true
	}
	for _, d := range p.dirs {
		info, err := os.Stat(d)
		if err != nil {
			continue
		}
		if prev := rw.added[d]; watched[d] && prev != nil && os.SameFile(prev, info) {
			continue
		}
		if watched[d] {
			_ = rw.w.Remove(d) // another directory now
		}
		if err := rw.w.Add(d); err != nil {
			if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, fsnotify.ErrClosed) {
				rw.logger.Warn("cannot watch a directory of resources: its files are served, but their changes send no notifications/resources/updated", "dir", d, "error", err)
			}
			delete(rw.added, d)
			continue
		}
		rw.added[d] = info
	}
	return p
}

// commit puts p, prepared, in service and stops watching the directories
// it does not need. The caller holds applyMu.
//
// The watcher's own list is checked too, not only the directories added:
// on Windows a watch follows its directory when it is renamed, and takes
// its new name (a template's directory renamed away to notes.old goes on
// being watched as notes.old, while notes, made again, is added anew).
// Such a watch is removed by its new name, which still leads to it.
func (rw *resourceWatch) commit(p *resourcePlan) {
	rw.plan.Store(p)
	want := make(map[string]bool, len(p.dirs))
	for _, d := range p.dirs {
		want[d] = true
	}
	for d := range rw.added {
		if !want[d] {
			_ = rw.w.Remove(d)
			delete(rw.added, d)
		}
	}
	for _, d := range rw.w.WatchList() {
		if !want[d] {
			_ = rw.w.Remove(d) // renamed away, on Windows
		}
	}
}

// planResourceWatch works out what to watch for reg: the directory of
// every resource's file (and of the file a symlink leads to), and the
// directory of every resource template, with those below it for a
// {+path} template, nearest first, within maxResourceWatchSlots.
func planResourceWatch(reg *Registry) *resourcePlan {
	p := &resourcePlan{files: map[string][]string{}, tdirs: map[string][]templateWatch{}, dirFiles: map[string][]string{}, roots: map[string]bool{}, links: map[string]bool{}}
	if reg == nil {
		return p
	}
	slots := 0
	seen := map[string]bool{}
	// addDir watches dir, if the cap allows.
	addDir := func(dir string, extra bool) bool {
		if seen[pathKey(dir)] {
			return true
		}
		cost := watchCost(dir)
		if slots+cost > maxResourceWatchSlots {
			if !extra {
				p.skipped++
			}
			return false
		}
		slots += cost
		seen[pathKey(dir)] = true
		p.dirs = append(p.dirs, dir)
		return true
	}
	var roots []string
	uris := make([]string, 0, len(reg.resources))
	for u, res := range reg.resources {
		if res.Backend == nil && res.File != "" {
			uris = append(uris, u)
		}
	}
	sort.Strings(uris)
	for _, u := range uris {
		file := reg.resources[u].File
		names := []string{file}
		if isSymlink(file) {
			p.links[pathKey(filepath.Join(realDir(filepath.Dir(file)), filepath.Base(file)))] = true
		}
		if real, err := filepath.EvalSymlinks(file); err == nil && pathKey(real) != pathKey(filepath.Join(realDir(filepath.Dir(file)), filepath.Base(file))) {
			names = append(names, real)
		}
		for _, name := range names {
			dir := realDir(filepath.Dir(name))
			if addDir(dir, false) {
				key := pathKey(filepath.Join(dir, filepath.Base(name)))
				p.files[key] = append(p.files[key], u)
				p.dirFiles[pathKey(dir)] = append(p.dirFiles[pathKey(dir)], u)
				roots = append(roots, dir)
			}
		}
	}
	for _, t := range reg.templates {
		if t.decl.Backend != nil || t.decl.Dir == "" {
			continue
		}
		queue := []templateWatch{{t: t, rel: ""}}
		paths := []string{realDir(t.decl.Dir)}
		for len(queue) > 0 {
			tw, dir := queue[0], paths[0]
			queue, paths = queue[1:], paths[1:]
			if !addDir(dir, false) {
				p.skipped += len(queue)
				break
			}
			if tw.rel == "" {
				roots = append(roots, dir)
			}
			p.tdirs[pathKey(dir)] = append(p.tdirs[pathKey(dir)], tw)
			if !t.decl.Reserved {
				continue // a {path} names files of the directory only
			}
			subs, left := subdirs(dir, maxResourceWatchSlots-slots)
			p.skipped += left
			for _, sub := range subs {
				queue = append(queue, templateWatch{t: t, rel: joinRel(tw.rel, sub)})
				paths = append(paths, filepath.Join(dir, sub))
			}
		}
	}
	// Last, within what the cap leaves: the parents.
	for _, root := range roots {
		if parent := filepath.Dir(root); parent != root && addDir(parent, true) {
			p.roots[pathKey(root)] = true
		}
	}
	return p
}

// isSymlink reports whether name is a symlink.
func isSymlink(name string) bool {
	info, err := os.Lstat(name)
	return err == nil && info.Mode()&os.ModeSymlink != 0
}

// realDir is dir with symlinks resolved, or dir when that fails.
func realDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// subdirs lists the names of the directories in dir (not symlinks to
// them, which a template's reads do not enter), the first limit of them
// in name order, and how many it left out. It reads the directory in
// batches: one with 100,000 files is read through, but only its
// directories are kept. With limit 0 it reads nothing and leaves out
// none it knows of.
func subdirs(dir string, limit int) (names []string, left int) {
	if limit <= 0 {
		return nil, 0
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	for {
		entries, err := f.ReadDir(1024)
		for _, e := range entries {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
		if err != nil {
			break // io.EOF, or unreadable
		}
	}
	sort.Strings(names)
	if len(names) > limit {
		return names[:limit], len(names) - limit
	}
	return names, 0
}

// watchCost is what watching dir takes of maxResourceWatchSlots: one
// watch, and on kqueue an open file for each of its entries too, counted
// up to the cap.
func watchCost(dir string) int {
	if !watchOpensEntries {
		return 1
	}
	f, err := os.Open(dir)
	if err != nil {
		return 1
	}
	defer f.Close()
	n := 1
	for n <= maxResourceWatchSlots {
		names, err := f.Readdirnames(256)
		n += len(names)
		if err != nil { // io.EOF at the end
			break
		}
	}
	return n
}

package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	thcl "github.com/toolhost/toolhost/hcl"
)

// Watch watches the config until ctx ends. It watches the parent directory
// of every config file (and every config directory) and filters events by
// name, so that saves by rename, files deleted and re-created, and
// Kubernetes ConfigMap updates (a "..data" symlink swap) are all seen.
// Bursts of events are debounced into one reload. Errors in a reload never
// stop the watch.
func (r *Reloader) Watch(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("starting the file watcher: %w", err)
	}
	defer w.Close()
	defer r.startResourceWatch(ctx)()
	var match func(string) bool
	// added holds the directories watched, by pathKey, as they were when
	// added.
	added := map[string]os.FileInfo{}
	// watch (re)computes what to watch, and runs again after each reload
	// (see rewatch).
	watch := func() (bool, error) {
		m, fresh, err := r.rewatch(w, added)
		match = m
		return fresh, err
	}
	if _, err := watch(); err != nil {
		return err
	}
	// An edit made between the load and now produced no event we saw: look
	// at once, as after an event, so that what to watch is worked out
	// again from what the look finds (a symlink re-pointed meanwhile at a
	// file not there yet: its creation must match).
	timer := time.NewTimer(0)
	debounce := r.Debounce
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	var burstStart time.Time // first event of the burst being debounced
	// rechecking: the timer runs for the look again after a directory
	// newly watched. rechecks counts those looks in a row: a chain of
	// directories made one in another (releases/2, then its files) needs
	// one each, and the bound keeps a directory that watches wrongly from
	// reloading forever.
	rechecking := false
	rechecks := 0
	// confirming: the last reload found errors and held them back (see
	// FailureQuiet); the timer runs for the reload that reports them,
	// unless an event comes first.
	confirming := false
	// heldSince is when the reloads began holding back: saves that keep
	// coming (each clearing confirming) have what they find reported or
	// applied once MaxDebounce has passed, as a continuous saver gets a
	// reload that often.
	var heldSince time.Time
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if !match(ev.Name) {
				continue
			}
			confirming = false
			debounceEvent(&burstStart, timer, debounce)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			r.logger().Warn("file watcher error", "error", err)
		case <-timer.C:
			burstStart = time.Time{}
			if !rechecking {
				rechecks = 0
			}
			rechecking = false
			hold := !confirming && (heldSince.IsZero() || time.Since(heldSince) < MaxDebounce)
			res := r.reload(ctx, hold)
			confirming = res.held
			switch {
			case !res.held:
				heldSince = time.Time{}
			case heldSince.IsZero():
				heldSince = time.Now()
			}
			switch {
			case res.RetryAfter > 0:
				// A file is empty: look again once it has stayed so
				// for EmptyGrace, even if nothing else happens.
				timer.Reset(res.RetryAfter)
			case res.held:
				// Errors, perhaps of a file read before its writer
				// finished: reported by the reload after FailureQuiet
				// of quiet, or never, if another event comes first.
				timer.Reset(r.failureWait())
			}
			fresh, err := watch()
			if err != nil {
				r.logger().Warn("file watcher error", "error", err)
			}
			if fresh && res.RetryAfter == 0 && !res.held && rechecks < maxRechecks {
				// A directory watched only now (the config's folder
				// re-created or replaced, or made where a link leads):
				// what was written in it before made no event, so look
				// again.
				rechecks++
				rechecking = true
				timer.Reset(debounce)
			}
		}
	}
}

// maxRechecks bounds the looks again in a row after directories newly
// watched (Watch).
const maxRechecks = 4

// FailureQuiet is how long the config's files must stay quiet after a
// reload of the watcher found errors before they are reported, by a
// reload that finds them again. A save read before its writer finished
// (a large file written in several writes, a writer descheduled on a busy
// machine) may not parse; the writer's next event comes within
// milliseconds, and the reload it brings is the one that counts. Until
// then the tools in service stay, and clients hear nothing. A config
// saved with errors is reported FailureQuiet later than it was read. A
// reload that would take a tool, resource or prompt away is held the same
// way (a file cut short at a block's end parses). Saves that keep coming
// are held no longer than MaxDebounce.
const FailureQuiet = 200 * time.Millisecond

// failureWait is FailureQuiet, or the wait a test sets.
func (r *Reloader) failureWait() time.Duration {
	if r.failureQuiet > 0 {
		return r.failureQuiet
	}
	return FailureQuiet
}

// rewatch works out what to watch (watchSet) and makes w watch it: added
// holds the directories w watches, by pathKey, as they were when added.
// It runs when Watch starts and again after each reload: a symlink swapped (a
// ConfigMap's "..data", a release's "current") or a directory replaced
// moves the config to directories not watched yet. A directory deleted or
// moved away stops being watched where it went (fsnotify drops a deleted
// one; a moved one is dropped here, as a new directory under the same path
// replaces it), and is watched again once it exists again. It returns the
// filter for event names, and whether it started watching a directory:
// files made in it before that made no event.
func (r *Reloader) rewatch(w *fsnotify.Watcher, added map[string]os.FileInfo) (match func(string) bool, fresh bool, err error) {
	dirs, extra, match := r.watchSet()
	if r.afterWatchSet != nil {
		r.afterWatchSet()
		r.afterWatchSet = nil
	}
	want := map[string]bool{}
	for _, d := range dirs {
		want[pathKey(d)] = true
	}
	watched := map[string]bool{}
	for _, d := range w.WatchList() {
		if !want[pathKey(d)] {
			// Watched under a name not asked for: on Windows a watched
			// directory renamed away (the config's folder replaced by
			// a rename) keeps its watch, under its new name. Dropped
			// before a directory is added under the old name, which
			// must be a watch of its own.
			_ = w.Remove(d)
			continue
		}
		watched[pathKey(d)] = true
	}
	for _, d := range dirs {
		info, err := os.Stat(d)
		if err != nil {
			continue // gone since watchSet looked: the next event says
		}
		key := pathKey(d)
		if prev := added[key]; watched[key] && prev != nil && os.SameFile(prev, info) {
			continue
		}
		if watched[key] || added[key] != nil {
			// Another directory now; the old one may be gone. On
			// Windows a directory renamed away keeps its watch (under
			// its new name, dropped above); where the system names a
			// directory by its path (wine), that watch is the one the
			// path finds, and would be taken for the new directory's.
			_ = w.Remove(d)
		}
		if r.beforeAdd != nil {
			r.beforeAdd(d)
		}
		if err := w.Add(d); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				// Gone since it was looked at (a folder renamed away
				// just as an editor or a deploy puts a new one in its
				// place): like a directory gone before the look, the
				// event on its parent, or the look that follows every
				// start of Watch, has it watched again.
				continue
			}
			if extra[d] {
				// Only watched for the config's folder being
				// replaced; a parent may not be readable.
				r.logger().Debug("not watching a parent of the config", "dir", d, "error", err)
				continue
			}
			return match, fresh, fmt.Errorf("watching %s: %w", d, err)
		}
		// Fresh only for a directory not watched before, or another one
		// under its path: watching one again that was watched already
		// brings nothing new to look at.
		if prev := added[key]; prev == nil || !os.SameFile(prev, info) {
			fresh = true
		}
		added[key] = info
	}
	for d := range added {
		if !want[d] {
			_ = w.Remove(d)
			delete(added, d)
		}
	}
	r.logger().Debug("watching config", "dirs", strings.Join(dirs, ","))
	return match, fresh, nil
}

// watchSet returns the directories to watch and a filter for event names.
// Directories are watched by their real paths (symlinks resolved), so that
// fsnotify names events by those paths and a path watched stands for one
// directory: after a symlink swap, the link's new target is a new path.
func (r *Reloader) watchSet() (dirs []string, extra map[string]bool, match func(string) bool) {
	p := &watchPlan{dirs: map[string]bool{}, dirKeys: map[string]string{}, names: map[string]bool{}, hclDirs: map[string]string{}}
	for _, path := range r.Paths {
		p.addConfig(path)
	}
	// The icon files the config in service was loaded with: their data is
	// in tools/list.
	for _, ic := range iconFiles(r.Server.Registry()) {
		if abs, err := filepath.Abs(ic.icon.File); err == nil {
			p.watchName(abs, true)
		}
	}
	// What the errors of the last reload say is missing (a resource's
	// file, a template's dir): creating it, as they say to, fixes the
	// config without a save of the config itself. Only in case: a parent
	// may be unreadable.
	for _, m := range r.missing {
		p.watchName(m, false)
	}
	p.addLinkedConfigs()
	dirs = make([]string, 0, len(p.dirs))
	extra = map[string]bool{}
	for d, essential := range p.dirs {
		dirs = append(dirs, d)
		if !essential {
			extra[d] = true
		}
	}
	sort.Strings(dirs)
	return dirs, extra, p.match
}

// watchPlan is what watchSet has found to watch so far.
type watchPlan struct {
	// dirs are the directories to watch; true for those that hold the
	// config or its icons, false for those watched only in case the
	// config's folder is deleted or replaced (its parent, or the nearest
	// directory that exists while it is gone), which may be unreadable.
	dirs map[string]bool
	// dirKeys are the dirs by pathKey: a directory reached under two
	// spellings (on Windows, the name given and its real one) is
	// watched once, under the first.
	dirKeys map[string]string
	// names are the files, links and directories to match, by pathKey.
	names map[string]bool
	// hclDirs are the config directories, by pathKey: any config file in
	// them matches.
	hclDirs map[string]string
}

// addDir watches dir; essential says it holds the config or its icons.
func (p *watchPlan) addDir(dir string, essential bool) {
	if first, ok := p.dirKeys[pathKey(dir)]; ok {
		dir = first
	} else {
		p.dirKeys[pathKey(dir)] = dir
	}
	p.dirs[dir] = p.dirs[dir] || essential
}

// watchName watches the directory holding name and matches events on name
// there: name created, removed, renamed over or swapped. When that
// directory is gone (deleted, or moved away), it watches the nearest
// directory on the way that exists, for the next one to come back.
func (p *watchPlan) watchName(name string, essential bool) {
	dir := filepath.Dir(name)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	child := filepath.Join(dir, filepath.Base(name))
	for {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			p.addDir(dir, essential)
			p.names[pathKey(child)] = true
			return
		}
		essential = false
		if filepath.Dir(dir) == dir {
			return
		}
		child, dir = dir, filepath.Dir(dir)
	}
}

// addConfig watches a config file or directory as given to serve.
func (p *watchPlan) addConfig(path string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return
	}
	// Every symlink on the way to the config ("current" ->
	// releases/7): swapping one changes the config with no event in
	// the config's own directory. Links just under the root (/tmp,
	// /var on macOS) are the system's and never swapped.
	for q := filepath.Dir(abs); filepath.Dir(q) != q; q = filepath.Dir(q) {
		if filepath.Dir(filepath.Dir(q)) == filepath.Dir(q) {
			break
		}
		if info, err := os.Lstat(q); err == nil && info.Mode()&os.ModeSymlink != 0 {
			p.watchName(q, true)
		}
	}
	// The config itself, in its parent: a file saved by rename or
	// re-created, a directory replaced. And that directory in its own
	// parent: the directory holding the config deleted and re-created,
	// or replaced by a rename (a project folder regenerated).
	p.watchName(abs, true)
	if parent := filepath.Dir(abs); filepath.Dir(parent) != parent {
		p.watchName(parent, false)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// A symlink to nothing on the way (tools.hcl, or "current",
		// re-pointed at a release not yet unpacked): the config
		// comes back when what it leads to is made.
		if target, ok := thcl.DanglingLink(abs); ok {
			p.watchName(target, true)
			return
		}
		// Or what it leads to was made between the two looks, and its
		// events may have come already: look again, or they would
		// match nothing.
		if real, err = filepath.EvalSymlinks(abs); err != nil {
			return
		}
	}
	if info, err := os.Stat(real); err == nil && info.IsDir() {
		p.addDir(real, true)
		p.hclDirs[pathKey(real)] = real
		return
	}
	// A config that is a symlink to a file elsewhere (dotfiles,
	// stow): the target's directory sees the edits of the target.
	p.addDir(filepath.Dir(real), true)
	p.names[pathKey(real)] = true
}

// addLinkedConfigs watches the targets of the *.hcl files of the config
// directories that are symlinks, as addConfig does a config that is one.
func (p *watchPlan) addLinkedConfigs() {
	for _, d := range p.hclDirs {
		entries, _ := filepath.Glob(filepath.Join(d, "*.hcl"))
		for _, e := range entries {
			if !thcl.IsConfigName(filepath.Base(e)) {
				continue
			}
			if real, err := filepath.EvalSymlinks(e); err == nil && real != e && pathKey(filepath.Dir(real)) != pathKey(d) {
				p.addDir(filepath.Dir(real), true)
				p.names[pathKey(real)] = true
			} else if target, ok := thcl.DanglingLink(e); ok {
				p.watchName(target, true)
			}
		}
	}
}

// match reports whether an event on name may change the config.
func (p *watchPlan) match(name string) bool {
	abs, err := filepath.Abs(name)
	if err != nil {
		return false
	}
	if p.names[pathKey(abs)] || filepath.Base(abs) == "..data" {
		return true
	}
	_, inDir := p.hclDirs[pathKey(filepath.Dir(abs))]
	return inDir && thcl.IsConfigName(filepath.Base(abs))
}

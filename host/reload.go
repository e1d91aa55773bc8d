package host

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/diagtext"
	"github.com/toolhost/toolhost/internal/regular"
)

// DefaultDebounce is how long the watcher waits after the last file event
// of a burst before it reloads.
const DefaultDebounce = 100 * time.Millisecond

// MaxDebounce is the longest a burst of saves holds back a reload: an
// editor that saves continuously still gets one at least this often.
const MaxDebounce = 500 * time.Millisecond

// Reloader keeps a Server's registry in step with its config files: it
// watches them, and on a change builds a new registry off to the side and
// swaps it in when it compiles without errors. A broken config never takes
// working tools away.
type Reloader struct {
	// Paths are the config files and directories, as given to serve.
	Paths  []string
	Server *Server
	Logger *slog.Logger
	// Debounce is the quiet time before a reload; DefaultDebounce when 0.
	Debounce time.Duration
	// Options are passed to every load.
	Options *thcl.Options
	// OnReload, when set, is called after every reload attempt that was not
	// skipped (for tests and benchmarks).
	OnReload func(ReloadResult)
	// Diagnostics receives the full rendering of a reload's diagnostics
	// (the errors of a failed one, the warnings of one applied), with
	// source lines and carets, as serve prints them at startup; os.Stderr
	// when nil.
	Diagnostics io.Writer

	lastSum [32]byte
	// failed is set while the last reload attempt had errors, and
	// failedText holds them as clients were told.
	failed     bool
	failedText string
	// missing are the files and directories the errors of the last
	// reload say do not exist (thcl.MissingPath): Watch watches for them,
	// since creating one, as the error says to, fixes the config.
	missing []string
	// emptyAt is when a reload first found a config file empty (zero
	// while none is).
	emptyAt time.Time
	// afterWatchSet, in tests, runs once, when Watch has first worked out
	// what to watch and before it watches it.
	afterWatchSet func()
}

// ReloadResult says what one reload attempt did.
type ReloadResult struct {
	// Applied is true when a new registry went into service.
	Applied bool
	// Skipped is true when the files' bytes had not changed, or a file was
	// empty (an editor in the middle of a save).
	Skipped bool
	// RetryAfter, when not 0, is when to try again: a file was empty for
	// less than EmptyGrace. Watch does so, even without another event.
	RetryAfter  time.Duration
	Changes     Changes
	Diagnostics hcl.Diagnostics
	Duration    time.Duration
}

// EmptyGrace is how long a config file may stay empty before a reload
// takes it as meant. An editor truncates a file and writes it again within
// milliseconds, so a reload that finds a file empty waits; but an empty
// file that stays (a file emptied on purpose, a placeholder in a config
// directory) must not hold back the saves of the other files for good.
// A config whose files are all empty is never loaded: it would take every
// tool away.
const EmptyGrace = time.Second

// Prime records the config in service, from the bytes reg was loaded
// from, so that an event that does not change them is skipped, and an edit
// made after the load but before the watch started is not.
func (r *Reloader) Prime(reg *Registry) {
	if sum, _, ok := loadedSum(reg); ok {
		r.lastSum = sum
	}
}

// fileSums hashes the names and bytes of config files, as read by read.
// empty lists the files that are empty (blank), all says every one is.
func fileSums(names []string, read func(string) ([]byte, bool)) (sum [32]byte, empty []string, all, ok bool) {
	h := sha256.New()
	all = len(names) > 0
	for _, name := range names {
		b, ok := read(name)
		if !ok {
			return sum, nil, false, false
		}
		if len(bytes.TrimSpace(b)) == 0 {
			empty = append(empty, name)
		} else {
			all = false
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(b))
		h.Write(b)
	}
	copy(sum[:], h.Sum(nil))
	return sum, empty, all, true
}

// loadedSum hashes the names and bytes of the files reg was loaded from,
// as configSum hashes them on disk, and lists those that were empty.
func loadedSum(reg *Registry) (sum [32]byte, empty []string, ok bool) {
	sum, empty, _, ok = fileSums(reg.Config.Paths, func(name string) ([]byte, bool) {
		f := reg.Config.Files[name]
		if f == nil {
			return nil, false
		}
		return f.Bytes, true
	})
	icons := iconFiles(reg)
	for _, ic := range icons {
		ic.sum = ic.icon.FileSum
	}
	return withIcons(sum, icons), empty, ok
}

// configSum hashes the names and bytes of the config files on disk, and
// of the icon files the config in service was loaded with. ok is false
// when a config file is missing or unreadable. empty lists the files that
// are empty, as they are mid-save, and allEmpty says every one is.
func (r *Reloader) configSum() (sum [32]byte, empty []string, allEmpty, ok bool) {
	files, diags := thcl.ConfigFiles(r.Paths)
	if diags.HasErrors() {
		return sum, nil, false, false
	}
	sum, empty, allEmpty, ok = fileSums(files, func(name string) ([]byte, bool) {
		b, err := thcl.ReadConfigFile(name)
		return b, err == nil
	})
	icons := iconFiles(r.Server.Registry())
	for _, ic := range icons {
		if b, err := regular.ReadFile(ic.icon.File, thcl.MaxConfigFileSize, thcl.ErrConfigTooLarge); err == nil {
			ic.sum = sha256.Sum256(b)
		} else {
			ic.sum = [32]byte{1} // unreadable: unlike any file's sum
		}
	}
	return withIcons(sum, icons), empty, allEmpty, ok
}

// iconFile is an icon read from a file at load, with the sum of the file.
type iconFile struct {
	icon *thcl.Icon
	sum  [32]byte
}

// iconFiles lists the icons of reg's tools that were read from files, one
// per file, by path. Their data is in tools/list, so a change of the file
// is a change of the config.
func iconFiles(reg *Registry) []*iconFile {
	if reg == nil || reg.Config == nil {
		return nil
	}
	seen := map[string]bool{}
	var icons []*iconFile
	for _, t := range reg.Config.Tools {
		for _, ic := range t.Icons {
			if ic.File != "" && !seen[ic.File] {
				seen[ic.File] = true
				icons = append(icons, &iconFile{icon: ic})
			}
		}
	}
	slices.SortFunc(icons, func(a, b *iconFile) int { return strings.Compare(a.icon.File, b.icon.File) })
	return icons
}

// withIcons folds the sums of icon files into the sum of the config files.
func withIcons(sum [32]byte, icons []*iconFile) [32]byte {
	if len(icons) == 0 {
		return sum
	}
	h := sha256.New()
	h.Write(sum[:])
	for _, ic := range icons {
		fmt.Fprintf(h, "icon\x00%s\x00", ic.icon.File)
		h.Write(ic.sum[:])
	}
	copy(sum[:], h.Sum(nil))
	return sum
}

// newlyEmpty returns the files of names that were not empty in the config
// in service (or not in it): those an editor may be in the middle of
// saving. A file that was empty already (a placeholder in a config
// directory) holds nothing back.
func (r *Reloader) newlyEmpty(names []string) []string {
	var files map[string]*hcl.File
	if reg := r.Server.Registry(); reg != nil && reg.Config != nil {
		files = reg.Config.Files
	}
	var fresh []string
	for _, n := range names {
		if f := files[n]; f == nil || len(bytes.TrimSpace(f.Bytes)) > 0 {
			fresh = append(fresh, n)
		}
	}
	return fresh
}

// waitEmpty decides about a config with files newly empty: it returns
// how long to wait before loading it, or 0 to load it now, once they have
// stayed empty for EmptyGrace.
func (r *Reloader) waitEmpty(files []string) time.Duration {
	now := time.Now()
	if r.emptyAt.IsZero() {
		r.emptyAt = now
	}
	wait := EmptyGrace - now.Sub(r.emptyAt)
	if wait <= 0 {
		r.logger().Info("a config file has stayed empty for "+EmptyGrace.String()+"; loading the config as it is", "files", strings.Join(files, ","))
		return 0
	}
	r.logger().Warn("config file is empty; keeping the tools in service until it has content, or until it has stayed empty for "+EmptyGrace.String(), "files", strings.Join(files, ","))
	return wait
}

// Reload loads and compiles the config with a fresh parser and, when it has
// no errors, puts it in service. On errors the registry in service stays,
// and the diagnostics go to the log and to clients as an error notification.
func (r *Reloader) Reload(ctx context.Context) ReloadResult {
	start := time.Now()
	logger := r.logger()
	sum, empty, allEmpty, ok := r.configSum()
	if ok && sum == r.lastSum {
		r.emptyAt = time.Time{}
		if r.failed {
			// Saved back to the config in service after a broken save.
			r.failed, r.missing = false, nil
			logger.Info("the config is valid again; the tools in service are unchanged")
			// Sent at warning, the level the default client sees, or at a
			// client's own level above it (NotifyCleared), so that everyone
			// who saw the error also sees it cleared.
			r.Server.NotifyCleared(ctx, "toolhost: the config is valid again; the tools in service are unchanged.")
		}
		return ReloadResult{Skipped: true}
	}
	// A file missing or unreadable: load anyway, to report what is wrong.
	// A file newly empty (mid-save, perhaps): wait, unless it has stayed
	// so. Every file empty: that would take every tool away; wait for
	// content.
	fresh := r.newlyEmpty(empty)
	switch {
	case !ok || len(fresh) == 0:
		r.emptyAt = time.Time{}
	case allEmpty:
		r.emptyAt = time.Time{}
		logger.Warn("config file is empty; keeping the tools in service until it has content", "files", strings.Join(empty, ","))
		return ReloadResult{Skipped: true}
	default:
		if wait := r.waitEmpty(fresh); wait > 0 {
			return ReloadResult{Skipped: true, RetryAfter: wait}
		}
	}
	defer RelaxGC()()
	reg, diags := Load(r.Paths, r.Options)
	res := ReloadResult{Diagnostics: diags}
	if !diags.HasErrors() {
		// The files are read again by Load: hash what it read, since an
		// editor may have truncated one since configSum looked.
		loaded, loadedEmpty, ok := loadedSum(reg)
		if !ok {
			reg.Close()
			return ReloadResult{Skipped: true}
		}
		if late := without(r.newlyEmpty(loadedEmpty), fresh); len(late) > 0 {
			reg.Close()
			r.emptyAt = time.Time{}
			return ReloadResult{Skipped: true, RetryAfter: r.waitEmpty(late)}
		}
		sum = loaded
	}
	if diags.HasErrors() {
		reg.Close()
		r.explainGone(diags)
		res.Duration = time.Since(start)
		text := thcl.FormatDiagnostics(diags)
		// The diagnostics follow in full, rendered as at startup: the log
		// line names the first, so that it is of use on its own (in a
		// log search), without saying them all twice.
		logger.Error("reload failed; the previous tools stay in service", "errors", countErrors(diags), "duration", res.Duration, "first", firstError(diags))
		diagtext.Write(r.diagOut(), configFiles(reg.Config), diags)
		// Clients hear of errors once: a reload that finds the same ones
		// again (the file touched or saved unchanged, or a directory of
		// the config's path moved about while it is gone) has nothing new
		// for them.
		again := r.failed && text == r.failedText
		r.failed, r.failedText = true, text
		r.missing = missingPaths(diags)
		if !again {
			r.Server.Notify(ctx, "error", "toolhost: the config has errors; the previous tools stay in service.\n"+text)
		}
		r.notify(res)
		return res
	}
	old, changes := r.Server.Apply(reg)
	if old != nil {
		old.Retire()
	}
	wasFailed := r.failed
	r.lastSum, r.failed, r.missing = sum, false, nil
	res.Applied, res.Changes, res.Duration = true, changes, time.Since(start)
	// The warnings of the new config, as serve prints them at startup:
	// once for every reload that is applied (a save that changes nothing
	// is skipped above, so an unchanged config does not repeat them).
	diagtext.Write(r.diagOut(), configFiles(reg.Config), diags)
	logger.Info("reloaded config",
		"tools_added", strings.Join(changes.ToolsAdded, ","),
		"tools_removed", strings.Join(changes.ToolsRemoved, ","),
		"tools_changed", strings.Join(changes.ToolsChanged, ","),
		"tools_redefined", strings.Join(changes.ToolsRedefined, ","),
		"resources_changed", changes.ResourcesChanged,
		"resources_redefined", strings.Join(changes.ResourcesRedefined, ","),
		"prompts_changed", changes.PromptsChanged,
		"prompts_redefined", strings.Join(changes.PromptsRedefined, ","),
		"server_changed", changes.ServerChanged,
		"tools", len(reg.Tools),
		"warnings", len(diags),
		"duration", res.Duration)
	// After a reload that failed, the clients that were told of its errors
	// hear that they are fixed, at warning or at a client's own level above
	// it, up to error (as when a save goes back to the config in service,
	// above).
	switch {
	case len(diags) > 0 && wasFailed:
		r.Server.NotifyCleared(ctx, "toolhost: the config is valid again and was reloaded; it has warnings.\n"+thcl.FormatDiagnostics(diags))
	case len(diags) > 0:
		r.Server.Notify(ctx, "warning", "toolhost: reloaded the config; it has warnings.\n"+thcl.FormatDiagnostics(diags))
	case wasFailed:
		logger.Info("the config is valid again")
		r.Server.NotifyCleared(ctx, "toolhost: the config is valid again and was reloaded.")
	}
	r.notify(res)
	return res
}

// diagOut is where full diagnostics with source snippets are written.
// firstError is the first error of diags as "file:line:col: summary".
func firstError(diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if d.Subject == nil {
			return d.Summary
		}
		return fmt.Sprintf("%s:%d:%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary)
	}
	return ""
}

func (r *Reloader) diagOut() io.Writer {
	if r.Diagnostics != nil {
		return r.Diagnostics
	}
	return os.Stderr
}

func (r *Reloader) notify(res ReloadResult) {
	if r.OnReload != nil {
		r.OnReload(res)
	}
}

func (r *Reloader) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

// explainGone rewords the "Config not found" errors of a reload: the
// config was there at the start, so it was deleted or moved since, and
// the fix is to restore it, not to give another path.
func (r *Reloader) explainGone(diags hcl.Diagnostics) {
	for _, d := range diags {
		if d.Summary != "Config not found" {
			continue
		}
		for _, p := range r.Paths {
			if strings.Contains(d.Detail, " at "+p+".") {
				d.Summary = "Config deleted or moved"
				d.Detail = fmt.Sprintf("%s was deleted or moved after toolhost loaded it. The tools loaded from it stay in service; put it back (or save it again) and it is reloaded.", p)
			}
		}
	}
}

// missingPaths returns the paths of the thcl.MissingPath errors of diags.
func missingPaths(diags hcl.Diagnostics) []string {
	var paths []string
	for _, d := range diags {
		if m, ok := d.Extra.(thcl.MissingPath); ok && d.Severity == hcl.DiagError && !slices.Contains(paths, m.Path) {
			paths = append(paths, m.Path)
		}
	}
	return paths
}

// without returns the names of a that are not in b.
func without(a, b []string) []string {
	var out []string
	for _, n := range a {
		if !slices.Contains(b, n) {
			out = append(out, n)
		}
	}
	return out
}

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
	var match func(string) bool
	// added holds the directories watched, as they were when added.
	added := map[string]os.FileInfo{}
	// watch (re)computes what to watch, and runs again after each reload:
	// a symlink swapped (a ConfigMap's "..data", a release's "current")
	// or a directory replaced moves the config to directories not watched
	// yet. A directory deleted or moved away stops being watched where it
	// went (fsnotify drops a deleted one; a moved one is dropped here, as
	// a new directory under the same path replaces it), and is watched
	// again once it exists again. It reports whether it started watching
	// a directory: files made in it before that made no event.
	watch := func() (bool, error) {
		dirs, extra, m := r.watchSet()
		match = m
		if r.afterWatchSet != nil {
			r.afterWatchSet()
			r.afterWatchSet = nil
		}
		watched := map[string]bool{}
		for _, d := range w.WatchList() {
			watched[d] = true
		}
		want := map[string]bool{}
		fresh := false
		for _, d := range dirs {
			want[d] = true
			info, err := os.Stat(d)
			if err != nil {
				continue // gone since watchSet looked: the next event says
			}
			if prev := added[d]; watched[d] && prev != nil && os.SameFile(prev, info) {
				continue
			}
			if watched[d] {
				_ = w.Remove(d) // another directory now; the old one may be gone
			}
			if err := w.Add(d); err != nil {
				if extra[d] {
					// Only watched for the config's folder being
					// replaced; a parent may not be readable.
					r.logger().Debug("not watching a parent of the config", "dir", d, "error", err)
					continue
				}
				return fresh, fmt.Errorf("watching %s: %w", d, err)
			}
			added[d], fresh = info, true
		}
		for d := range added {
			if !want[d] {
				_ = w.Remove(d)
				delete(added, d)
			}
		}
		r.logger().Debug("watching config", "dirs", strings.Join(dirs, ","))
		return fresh, nil
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
	// newly watched.
	rechecking := false
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
			// Each event restarts the wait, but a burst that goes on (an
			// editor saving continuously) is reloaded at least every
			// MaxDebounce.
			now := time.Now()
			if burstStart.IsZero() {
				burstStart = now
			}
			if now.Sub(burstStart)+debounce <= MaxDebounce {
				timer.Reset(debounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			r.logger().Warn("file watcher error", "error", err)
		case <-timer.C:
			burstStart = time.Time{}
			recheck := rechecking
			rechecking = false
			res := r.Reload(ctx)
			if res.RetryAfter > 0 {
				// A file is empty: look again once it has stayed so
				// for EmptyGrace, even if nothing else happens.
				timer.Reset(res.RetryAfter)
			}
			fresh, err := watch()
			if err != nil {
				r.logger().Warn("file watcher error", "error", err)
			}
			if fresh && res.RetryAfter == 0 && !recheck {
				// A directory watched only now (the config's folder
				// re-created or replaced): what was written in it before
				// made no event, so look again, once.
				rechecking = true
				timer.Reset(debounce)
			}
		}
	}
}

// watchSet returns the directories to watch and a filter for event names.
// Directories are watched by their real paths (symlinks resolved), so that
// fsnotify names events by those paths and a path watched stands for one
// directory: after a symlink swap, the link's new target is a new path.
func (r *Reloader) watchSet() (dirs []string, extra map[string]bool, match func(string) bool) {
	// dirSet: the directories to watch; true for those that hold the
	// config or its icons, false for those watched only in case the
	// config's folder is deleted or replaced (its parent, or the nearest
	// directory that exists while it is gone), which may be unreadable.
	dirSet := map[string]bool{}
	addDir := func(dir string, essential bool) { dirSet[dir] = dirSet[dir] || essential }
	names := map[string]bool{} // files, links and directories to match
	hclDirs := map[string]bool{}
	// watchName watches the directory holding name and matches events on
	// name there: name created, removed, renamed over or swapped. When that
	// directory is gone (deleted, or moved away), it watches the nearest
	// directory on the way that exists, for the next one to come back.
	watchName := func(name string, essential bool) {
		dir := filepath.Dir(name)
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		child := filepath.Join(dir, filepath.Base(name))
		for {
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				addDir(dir, essential)
				names[child] = true
				return
			}
			essential = false
			if filepath.Dir(dir) == dir {
				return
			}
			child, dir = dir, filepath.Dir(dir)
		}
	}
	for _, p := range r.Paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
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
				watchName(q, true)
			}
		}
		// The config itself, in its parent: a file saved by rename or
		// re-created, a directory replaced. And that directory in its own
		// parent: the directory holding the config deleted and re-created,
		// or replaced by a rename (a project folder regenerated).
		watchName(abs, true)
		if parent := filepath.Dir(abs); filepath.Dir(parent) != parent {
			watchName(parent, false)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			// A symlink to nothing on the way (tools.hcl, or "current",
			// re-pointed at a release not yet unpacked): the config
			// comes back when what it leads to is made.
			if target, ok := thcl.DanglingLink(abs); ok {
				watchName(target, true)
			}
			continue
		}
		if info, err := os.Stat(real); err == nil && info.IsDir() {
			addDir(real, true)
			hclDirs[real] = true
			continue
		}
		// A config that is a symlink to a file elsewhere (dotfiles,
		// stow): the target's directory sees the edits of the target.
		addDir(filepath.Dir(real), true)
		names[real] = true
	}
	// The icon files the config in service was loaded with: their data is
	// in tools/list.
	for _, ic := range iconFiles(r.Server.Registry()) {
		if abs, err := filepath.Abs(ic.icon.File); err == nil {
			watchName(abs, true)
		}
	}
	// What the errors of the last reload say is missing (a resource's
	// file, a template's dir): creating it, as they say to, fixes the
	// config without a save of the config itself. Only in case: a parent
	// may be unreadable.
	for _, p := range r.missing {
		watchName(p, false)
	}
	// Likewise for *.hcl files of a config directory that are symlinks.
	for d := range hclDirs {
		entries, _ := filepath.Glob(filepath.Join(d, "*.hcl"))
		for _, e := range entries {
			if !thcl.IsConfigName(filepath.Base(e)) {
				continue
			}
			if real, err := filepath.EvalSymlinks(e); err == nil && real != e && filepath.Dir(real) != d {
				addDir(filepath.Dir(real), true)
				names[real] = true
			} else if target, ok := thcl.DanglingLink(e); ok {
				watchName(target, true)
			}
		}
	}
	dirs = make([]string, 0, len(dirSet))
	extra = map[string]bool{}
	for d, essential := range dirSet {
		dirs = append(dirs, d)
		if !essential {
			extra[d] = true
		}
	}
	sort.Strings(dirs)
	return dirs, extra, func(name string) bool {
		abs, err := filepath.Abs(name)
		if err != nil {
			return false
		}
		if names[abs] || filepath.Base(abs) == "..data" {
			return true
		}
		return hclDirs[filepath.Dir(abs)] && thcl.IsConfigName(filepath.Base(abs))
	}
}

// configFiles returns the parsed files of cfg, which may be nil.
func configFiles(cfg *thcl.Config) map[string]*hcl.File {
	if cfg == nil {
		return nil
	}
	return cfg.Files
}

// blockDefs maps each top-level block of cfg, by kind and name ("tool",
// "greet"), to what fixes how it behaves beyond what clients see: its source
// text and the directory its relative paths resolve against. (The values
// env() reads come from the environment of this process, the same for
// every load, and content files are read at call time, so neither can
// change a block whose source stayed the same.) Apply compares them to tell
// apart the definitions a reload changed behind an unchanged declaration.
func blockDefs(cfg *thcl.Config) map[blockKey]blockDef {
	defs := map[blockKey]blockDef{}
	if cfg == nil {
		return defs
	}
	for name, f := range cfg.Files {
		body, ok := f.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		for _, b := range body.Blocks {
			rng := b.Range()
			if rng.Start.Byte < 0 || rng.End.Byte > len(f.Bytes) || rng.Start.Byte > rng.End.Byte {
				continue
			}
			key := blockKey{kind: b.Type}
			if len(b.Labels) > 0 {
				key.name = b.Labels[0]
			}
			defs[key] = blockDef{dir: filepath.Dir(name), src: f.Bytes[rng.Start.Byte:rng.End.Byte]}
		}
	}
	return defs
}

type blockKey struct{ kind, name string }

type blockDef struct {
	dir string
	src []byte
}

// blockChanges tells which blocks a reload redefined: those whose source
// changed in more than comments and layout, or whose directory changed.
type blockChanges struct {
	old, new map[blockKey]blockDef
	// lexBudget is how many more bytes of changed source may be lexed to
	// tell a comment or layout edit from a real one: beyond it (a config
	// of a thousand blocks reformatted, say) a changed source counts as a
	// redefinition, which is only logged, rather than slow the reload.
	lexBudget int
}

// maxLexedPerReload is the lexBudget of a reload: about 3 ms of lexing
// (HCL's lexer runs at about 20 MB/s here).
const maxLexedPerReload = 64 << 10

func newBlockChanges(old, new map[blockKey]blockDef) *blockChanges {
	return &blockChanges{old: old, new: new, lexBudget: maxLexedPerReload}
}

// redefined reports whether the block key is in both the old and the new
// config with a different definition: another directory, or a source that
// differs in more than comments and line breaks.
func (c *blockChanges) redefined(key blockKey) bool {
	if c == nil {
		return false
	}
	x, ok1 := c.old[key]
	y, ok2 := c.new[key]
	if !ok1 || !ok2 {
		return false
	}
	if x.dir != y.dir {
		return true
	}
	if bytes.Equal(x.src, y.src) {
		return false
	}
	if c.lexBudget -= len(x.src) + len(y.src); c.lexBudget < 0 {
		return true
	}
	return !sameTokens(x.src, y.src)
}

// sameTokens reports whether two sources of a block are the same tokens
// but for comments, line breaks and spacing, which change nothing a
// block does (both come from configs that parsed, so a line break cannot
// have ended an expression in one and not in the other).
func sameTokens(a, b []byte) bool {
	ta, da := hclsyntax.LexConfig(a, "", hcl.InitialPos)
	tb, db := hclsyntax.LexConfig(b, "", hcl.InitialPos)
	if da.HasErrors() || db.HasErrors() {
		return false
	}
	skip := func(t hclsyntax.TokenType) bool {
		return t == hclsyntax.TokenComment || t == hclsyntax.TokenNewline
	}
	i, j := 0, 0
	for {
		for i < len(ta) && skip(ta[i].Type) {
			i++
		}
		for j < len(tb) && skip(tb[j].Type) {
			j++
		}
		if i == len(ta) || j == len(tb) {
			return i == len(ta) && j == len(tb)
		}
		if ta[i].Type != tb[j].Type || !bytes.Equal(ta[i].Bytes, tb[j].Bytes) {
			return false
		}
		i++
		j++
	}
}

// ServerOption tunes NewServer.
type ServerOption func(*serverOptions)

type serverOptions struct {
	listChanged bool
	beforeWork  func()
}

// BeforeWork gives NewServer a function to run before the server does any
// work but answer initialize: the server calls it on a new goroutine once
// initialize is answered (so that it costs the first answer nothing), and
// before it handles any other request (so that it has finished before
// anything runs). f must be safe to call more than once and at once from
// several goroutines, and do its work once (sync.Once).
func BeforeWork(f func()) ServerOption {
	return func(o *serverOptions) { o.beforeWork = f }
}

// ListChanged says whether the tools, resources and prompts in service may
// change while clients are connected, as they do when a Reloader watches
// the config: the capabilities advertise it as listChanged. It is true
// unless given; serve --watch=false passes false, so that clients do not
// wait for notifications that never come.
func ListChanged(on bool) ServerOption {
	return func(o *serverOptions) { o.listChanged = on }
}

func countErrors(diags hcl.Diagnostics) int {
	n := 0
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			n++
		}
	}
	return n
}

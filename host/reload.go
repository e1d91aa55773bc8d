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
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/diagtext"
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
	// failed is set while the last reload attempt had errors.
	failed bool
}

// ReloadResult says what one reload attempt did.
type ReloadResult struct {
	// Applied is true when a new registry went into service.
	Applied bool
	// Skipped is true when the files' bytes had not changed, or a file was
	// empty (an editor in the middle of a save).
	Skipped     bool
	Changes     Changes
	Diagnostics hcl.Diagnostics
	Duration    time.Duration
}

// Prime records the config in service, from the bytes reg was loaded
// from, so that an event that does not change them is skipped, and an edit
// made after the load but before the watch started is not.
func (r *Reloader) Prime(reg *Registry) {
	if sum, ok := loadedSum(reg); ok {
		r.lastSum = sum
	}
}

// loadedSum hashes the names and bytes of the files reg was loaded from,
// as configSum hashes them on disk. It reports false when a file is
// missing from the registry or empty: read between an editor's truncate
// and its write.
func loadedSum(reg *Registry) ([32]byte, bool) {
	h := sha256.New()
	for _, name := range reg.Config.Paths {
		f := reg.Config.Files[name]
		if f == nil || len(bytes.TrimSpace(f.Bytes)) == 0 {
			return [32]byte{}, false
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(f.Bytes))
		h.Write(f.Bytes)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, true
}

// configSum hashes the names and bytes of the config files. It reports
// false when a file is empty or unreadable, which happens mid-save.
func (r *Reloader) configSum() ([32]byte, bool) {
	files, diags := thcl.ConfigFiles(r.Paths)
	h := sha256.New()
	if diags.HasErrors() {
		return [32]byte{}, false
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(bytes.TrimSpace(b)) == 0 {
			return [32]byte{}, false
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, true
}

// Reload loads and compiles the config with a fresh parser and, when it has
// no errors, puts it in service. On errors the registry in service stays,
// and the diagnostics go to the log and to clients as an error notification.
func (r *Reloader) Reload(ctx context.Context) ReloadResult {
	start := time.Now()
	logger := r.logger()
	sum, ok := r.configSum()
	if ok && sum == r.lastSum {
		if r.failed {
			// Saved back to the config in service after a broken save.
			r.failed = false
			logger.Info("the config is valid again; the tools in service are unchanged")
			// Sent at warning, the level the default client sees, so that
			// everyone who saw the error also sees it cleared.
			r.Server.Notify(ctx, "warning", "toolhost: the config is valid again; the tools in service are unchanged.")
		}
		return ReloadResult{Skipped: true}
	}
	if !ok {
		// A file missing, empty or unreadable: load anyway, to report what
		// is wrong, unless it is only empty (mid-save), which is skipped.
		if r.hasEmptyFile() {
			logger.Warn("config file is empty; keeping the tools in service until it has content")
			return ReloadResult{Skipped: true}
		}
	}
	defer RelaxGC()()
	reg, diags := Load(r.Paths, r.Options)
	res := ReloadResult{Diagnostics: diags}
	if !diags.HasErrors() {
		// The files are read again by Load: hash what it read, since an
		// editor may have truncated one since configSum looked.
		loaded, ok := loadedSum(reg)
		if !ok {
			reg.Close()
			logger.Warn("config file is empty; keeping the tools in service until it has content")
			return ReloadResult{Skipped: true}
		}
		sum = loaded
	}
	if diags.HasErrors() {
		reg.Close()
		res.Duration = time.Since(start)
		text := thcl.FormatDiagnostics(diags)
		logger.Error("reload failed; the previous tools stay in service", "errors", countErrors(diags), "duration", res.Duration, "diagnostics", text)
		diagtext.Write(r.diagOut(), configFiles(reg.Config), diags)
		r.failed = true
		r.Server.Notify(ctx, "error", "toolhost: the config has errors; the previous tools stay in service.\n"+text)
		r.notify(res)
		return res
	}
	old, changes := r.Server.Apply(reg)
	if old != nil {
		old.Retire()
	}
	r.lastSum, r.failed = sum, false
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
	if len(diags) > 0 {
		r.Server.Notify(ctx, "warning", "toolhost: reloaded the config; it has warnings.\n"+thcl.FormatDiagnostics(diags))
	}
	r.notify(res)
	return res
}

// diagOut is where full diagnostics with source snippets are written.
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

func (r *Reloader) hasEmptyFile() bool {
	files, _ := thcl.ConfigFiles(r.Paths)
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && len(bytes.TrimSpace(b)) == 0 {
			return true
		}
	}
	return false
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
	watched := map[string]bool{}
	var match func(string) bool
	// watch (re)computes what to watch: a symlinked config's target can
	// move when the link is swapped, so it runs again after each reload.
	watch := func() error {
		var dirs []string
		dirs, match = r.watchSet()
		for _, d := range dirs {
			if watched[d] {
				continue
			}
			if err := w.Add(d); err != nil {
				return fmt.Errorf("watching %s: %w", d, err)
			}
			watched[d] = true
		}
		r.logger().Debug("watching config", "dirs", strings.Join(dirs, ","))
		return nil
	}
	if err := watch(); err != nil {
		return err
	}
	// An edit made between the load and now produced no event we saw.
	r.Reload(ctx)
	debounce := r.Debounce
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var burstStart time.Time // first event of the burst being debounced
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
			r.Reload(ctx)
			if err := watch(); err != nil {
				r.logger().Warn("file watcher error", "error", err)
			}
		}
	}
}

// watchSet returns the directories to watch and a filter for event names.
func (r *Reloader) watchSet() ([]string, func(string) bool) {
	dirSet := map[string]bool{}
	files := map[string]bool{}
	hclDirs := map[string]bool{}
	for _, p := range r.Paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if info, err := os.Stat(abs); err == nil && info.IsDir() {
			dirSet[abs] = true
			hclDirs[abs] = true
			continue
		}
		dirSet[filepath.Dir(abs)] = true
		files[abs] = true
		// A config that is a symlink to a file elsewhere (dotfiles,
		// stow): the target's directory sees the edits of the target.
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			dirSet[filepath.Dir(real)] = true
			files[real] = true
		}
	}
	// Likewise for *.hcl files of a config directory that are symlinks.
	for d := range hclDirs {
		entries, _ := filepath.Glob(filepath.Join(d, "*.hcl"))
		for _, e := range entries {
			if real, err := filepath.EvalSymlinks(e); err == nil && real != e && filepath.Dir(real) != d {
				dirSet[filepath.Dir(real)] = true
				files[real] = true
			}
		}
	}
	dirs := make([]string, 0, len(dirSet))
	for d := range dirSet {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs, func(name string) bool {
		abs, err := filepath.Abs(name)
		if err != nil {
			return false
		}
		if files[abs] || filepath.Base(abs) == "..data" {
			return true
		}
		return hclDirs[filepath.Dir(abs)] && strings.HasSuffix(abs, ".hcl")
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

// redefined reports whether the block key is in both a and b with a
// different definition.
func redefined(a, b map[blockKey]blockDef, key blockKey) bool {
	x, ok1 := a[key]
	y, ok2 := b[key]
	return ok1 && ok2 && (x.dir != y.dir || !bytes.Equal(x.src, y.src))
}

// ServerOption tunes NewServer.
type ServerOption func(*serverOptions)

type serverOptions struct {
	listChanged bool
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

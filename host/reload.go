package host

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/regular"
)

// DefaultDebounce is how long the watcher waits after the last event on
// the config's files before it reloads. Editors save in one burst of
// events a few milliseconds long at most: vim renames the file to its
// backup and writes a new one (or, with backupcopy=yes, truncates and
// writes it in place), VS Code truncates the file and writes it in
// place, JetBrains IDEs and most tools write a temporary file and rename
// it over the config (one event, on a file already whole). 30 ms of
// quiet covers such a burst with room for a busy machine, and keeps a
// save of one tool of a large config quick to reach clients. A file read
// before its writer has finished is not taken as the user's mistake: a
// reload the watcher makes that fails is reported only once the files
// have been quiet for FailureQuiet (see Watch), and an empty file waits
// for EmptyGrace.
const DefaultDebounce = 30 * time.Millisecond

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
	// skipped (for tests, benchmarks and serve's reload metrics).
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
	// primedBroken is set from Prime with a PlaceholderRegistry until
	// the first reload: serve has logged the errors it finds.
	primedBroken bool
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
	// beforeAdd, in tests, runs just before Watch adds a directory to the
	// watcher, with its path.
	beforeAdd func(dir string)
	// failureQuiet, in tests, replaces FailureQuiet when not 0.
	failureQuiet time.Duration
	// beforeSettle, in tests, runs when a reload that took moved pieces
	// has been applied, before the load that parses them (see settle).
	beforeSettle func()
}

// ReloadResult says what one reload attempt did.
type ReloadResult struct {
	// Applied is true when a new registry went into service.
	Applied bool
	// Skipped is true when the files' bytes had not changed, or a file was
	// empty (an editor in the middle of a save), or the watcher holds back
	// the errors it found until the files are quiet (FailureQuiet).
	Skipped bool
	// RetryAfter, when not 0, is when to try again: a file was empty for
	// less than EmptyGrace. Watch does so, even without another event.
	RetryAfter  time.Duration
	Changes     Changes
	Diagnostics hcl.Diagnostics
	Duration    time.Duration
	// held is set when the config had errors that were not reported (a
	// reload with hold set).
	held bool
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
	if reg.Placeholder() {
		r.primeBroken(reg)
		return
	}
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
func (r *Reloader) Reload(ctx context.Context) ReloadResult { return r.reload(ctx, false) }

// reload is Reload. With hold set, a config with errors is not reported,
// nor one that would take a tool, resource or prompt away applied: the
// result says so (held), and the registry in service stays (see Watch,
// which reloads again once the files have been quiet). It is long as one
// sequence of steps, each of which may end the reload (unchanged, empty,
// held, failed, applied) in that order; split, that order would be
// spread over several functions.
func (r *Reloader) reload(ctx context.Context, hold bool) ReloadResult {
	start := time.Now()
	logger := r.logger()
	sum, empty, allEmpty, ok := r.configSum()
	if ok && sum == r.lastSum {
		r.emptyAt = time.Time{}
		if r.failed {
			// Saved back to the config in service after a broken save.
			r.failed, r.missing = false, nil
			r.Server.SetNotice("")
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
	reg, diags := r.load()
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
		if hold && removesDeclarations(r.Server.Registry(), reg) {
			reg.Close()
			return ReloadResult{Skipped: true, held: true}
		}
	}
	if diags.HasErrors() {
		reg.Close()
		if hold {
			return ReloadResult{Skipped: true, held: true}
		}
		never := r.Server.Registry().Placeholder()
		if !never {
			r.explainGone(diags)
		}
		res.Duration = time.Since(start)
		text := thcl.FormatDiagnostics(diags)
		// Clients hear of errors once: a reload that finds the same ones
		// again (the file touched or saved unchanged, or a directory of
		// the config's path moved about while it is gone) has nothing new
		// for them.
		again := r.failed && text == r.failedText
		if !again || !r.primedBroken {
			// The diagnostics follow in full, rendered as at startup: the
			// log line names the first, so that it is of use on its own
			// (in a log search), without saying them all twice.
			logger.Error(failedLog(never), "outcome", "failed", "errors", countErrors(diags), "duration", res.Duration, "first", firstError(diags))
			r.writeDiagnostics(reg.Config, diags)
		}
		r.failed, r.failedText, r.primedBroken = true, text, false
		r.missing = missingPaths(diags)
		if !again {
			msg := failedNotice(never, text)
			r.Server.Notify(ctx, "error", msg)
			r.Server.SetNotice(msg)
		}
		r.notify(res)
		return res
	}
	old, changes := r.Server.Apply(reg)
	if old != nil {
		old.Retire()
	}
	first := old.Placeholder()
	wasFailed := r.failed
	r.lastSum, r.failed, r.missing, r.primedBroken = sum, false, nil, false
	r.Server.SetNotice("")
	res.Applied, res.Changes, res.Duration = true, changes, time.Since(start)
	// The warnings of the new config, as serve prints them at startup:
	// once for every reload that is applied (a save that changes nothing
	// is skipped above, so an unchanged config does not repeat them).
	r.writeDiagnostics(reg.Config, diags)
	logger.Info(loadedLog(first), "outcome", "applied",
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
		"resources", len(reg.Resources)+len(reg.Templates),
		"prompts", len(reg.Prompts),
		"warnings", len(diags),
		"duration", res.Duration)
	// After a reload that failed, the clients that were told of its errors
	// hear that they are fixed, at warning or at a client's own level above
	// it, up to error (as when a save goes back to the config in service,
	// above).
	switch {
	case first:
		r.Server.NotifyCleared(ctx, strings.TrimSuffix("toolhost: the config is valid now and was loaded; its tools are served.\n"+thcl.FormatDiagnostics(diags), "\n"))
	case len(diags) > 0 && wasFailed:
		r.Server.NotifyCleared(ctx, "toolhost: the config is valid again and was reloaded; it has warnings.\n"+thcl.FormatDiagnostics(diags))
	case len(diags) > 0:
		r.Server.Notify(ctx, "warning", "toolhost: reloaded the config; it has warnings.\n"+thcl.FormatDiagnostics(diags))
	case wasFailed:
		logger.Info("the config is valid again")
		r.Server.NotifyCleared(ctx, "toolhost: the config is valid again and was reloaded.")
	}
	r.notify(res)
	if reg.Config.Moved("") {
		r.settle(reg)
	}
	return res
}

// load loads the config, taking from the registry in service what has
// not changed (thcl.Options.Previous), unless that is a placeholder, and
// the pieces an edit moved as they are (thcl.Options.TakeMoved), unless
// the load has diagnostics: reload then settles them (see settle).
func (r *Reloader) load() (*Registry, hcl.Diagnostics) {
	cur := r.Server.Registry()
	if cur == nil || cur.Placeholder() || cur.Config == nil {
		return Load(r.Paths, r.Options)
	}
	var opts thcl.Options
	if r.Options != nil {
		opts = *r.Options
	}
	opts.Previous, opts.TakeMoved = cur.Config, true
	reg, diags := loadAfter(r.Paths, &opts, cur)
	if reg.Config.Moved("") && len(diags) > 0 {
		// What a load says points at where things are: load as usual.
		reg.Close()
		opts.TakeMoved = false
		reg, diags = loadAfter(r.Paths, &opts, cur)
	}
	return reg, diags
}

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

func countErrors(diags hcl.Diagnostics) int {
	n := 0
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			n++
		}
	}
	return n
}

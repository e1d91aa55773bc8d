package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"
	"github.com/toolhost/toolhost/internal/files"
)

// Result is what Apply did, or would do on a dry run.
type Result struct {
	Editor Editor
	Name   string // the entry's name
	Path   string // the config file
	// Target is the file written when Path is a symbolic link to it (the
	// link stays a link); Path otherwise.
	Target  string
	Entry   Server
	Old     []byte   // the entry replaced, as it was; nil when added
	Kept    []string // the settings of the entry replaced that it keeps (env, disabled...)
	Created bool     // the file was not there
	// Unchanged: the file already had the same entry, and nothing was
	// written.
	Unchanged bool
	Backup    string // the copy of the old content; "" when there was none
	DryRun    bool
	Content   []byte // the file's new content
	// like is the file replaced, or the folder a new one goes in: what
	// is written gets its owner (matchOwner).
	like fs.FileInfo
}

// Apply merges the server s, named name, into e's config file at path (see
// mergeEntry), and writes the file atomically, with a copy of its old
// content in path.bak, unless dryRun. A file that does not exist is
// created, with its directory. A file that is not JSON, or whose servers
// are not an object, is left alone: the error is a *FileError.
func Apply(path string, e Editor, name string, s Server, dryRun bool) (r Result, err error) {
	// Another program may write the file meanwhile (a second setup, the
	// editor itself): the write is then done again from what it wrote, so
	// that neither change is lost.
	for range maxApplyTries {
		r, err = apply(path, e, name, s, dryRun)
		if !errors.Is(err, errChanged) {
			return r, err
		}
	}
	return r, fmt.Errorf("%s kept changing while setup wrote it (%d tries), and was left as the other program wrote it: close the program that writes it (the editor) and run setup again", path, maxApplyTries)
}

// maxApplyTries bounds Apply's writes again.
const maxApplyTries = 5

// errChanged: the file changed between its read and the rename over it.
var errChanged = errors.New("changed meanwhile")

// beforeRename, in tests, runs just before writeAtomic's rename.
var beforeRename func(path string)

// apply is one try of Apply.
func apply(path string, e Editor, name string, s Server, dryRun bool) (Result, error) {
	r := Result{Editor: e, Name: name, Path: path, Target: path, Entry: s, DryRun: dryRun}
	// A config file kept elsewhere behind a link (dotfiles) is written
	// where it is, and the link stays.
	if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			// EvalSymlinks counts the links it follows, and gives up
			// with an error of its own wording.
			if isLoopErr(err) || strings.HasSuffix(err.Error(), "too many links") {
				return r, fmt.Errorf("%s is a symbolic link that leads back to itself (%w): point it at the editor's file, or remove it", path, err)
			}
			return r, fmt.Errorf("%s is a symbolic link to a file that is not there (%w): point it at the editor's file, or remove it", path, err)
		}
		r.Target = target
	}
	src, err := os.ReadFile(r.Target)
	mode := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.Created = true
	case err != nil:
		return r, fmt.Errorf("cannot read %s: %w%s", path, files.Bare(err), fixFor(err))
	default:
		if info, err := os.Stat(r.Target); err == nil {
			mode = info.Mode().Perm()
			r.like = info
		}
	}
	m, err := mergeEntry(src, e, name, s)
	if err != nil {
		if fe, ok := err.(*FileError); ok {
			fe.Path = path
		}
		return r, err
	}
	r.Old, r.Unchanged, r.Content, r.Kept = m.old, m.unchanged, m.out, m.kept
	if r.Unchanged || dryRun {
		return r, nil
	}
	if !r.Created && mode&0o200 == 0 {
		// A rename would replace it all the same: its owner's word
		// stands.
		return r, fmt.Errorf("%s is read-only, and setup does not write over a file made so: make it writable (chmod u+w on macOS and Linux; clear Read-only in its Properties on Windows) and run setup again, or add the entry by hand (--dry-run prints the file as it would be)", path)
	}
	dir := filepath.Dir(r.Target)
	if r.Created {
		// The owner of the folder it goes in owns what is made: run
		// with sudo, setup would leave root's files in a user's home.
		r.like = existingAncestor(dir)
		made, err := mkdirAll(dir)
		if err != nil {
			return r, fmt.Errorf("cannot create the directory of %s: %w%s", path, files.Bare(err), fixFor(err))
		}
		for _, d := range made {
			if err := matchOwner(d, r.like); err != nil {
				return r, fmt.Errorf("cannot give %s its owner: %w", d, err)
			}
		}
	} else if len(bytes.TrimSpace(src)) > 0 {
		r.Backup = r.Target + ".bak"
		if err := writeAtomic(r.Backup, src, mode, r.like, nil); err != nil {
			return r, fmt.Errorf("cannot write the backup %s, so %s was left as it was: %w%s", r.Backup, path, err, fixFor(err))
		}
	}
	// Still what was read, or still not there.
	same := func() error {
		now, err := os.ReadFile(r.Target)
		if (r.Created && !errors.Is(err, fs.ErrNotExist)) || (!r.Created && (err != nil || !bytes.Equal(now, src))) {
			return errChanged
		}
		return nil
	}
	if err := writeAtomic(r.Target, m.out, mode, r.like, same); err != nil {
		if errors.Is(err, errChanged) {
			return r, err
		}
		return r, fmt.Errorf("cannot write %s, which was left as it was: %w%s", path, err, fixFor(err))
	}
	return r, nil
}

// fixFor says what to do about err, a failure to read or write an
// editor's file or make its folder: "; " and the fix, or "" when there is
// nothing to say beyond the error.
func fixFor(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "; run setup as the user the editor runs as (the file's owner), or give that user the right to read and write it and its folder"
	case isDirErr(err):
		return "; a folder stands where the editor keeps its settings file: move it away, and run setup again"
	case notDirErr(err):
		return "; a file stands where a folder on the way to the editor's settings should be: move it away, and run setup again"
	case isLoopErr(err):
		return "; a symbolic link on the way leads back to itself: point it at the editor's file, or remove it"
	}
	return ""
}

// existingAncestor is the nearest directory on the way up from dir that
// exists; nil when none can be read.
func existingAncestor(dir string) fs.FileInfo {
	for {
		if info, err := os.Stat(dir); err == nil {
			return info
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

// mkdirAll makes dir and its missing parents, and returns those it made,
// outermost first.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append([]string{d}, missing...)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return missing, nil
}

// writeAtomic replaces the file at path with data: written to a new file
// in the same directory, flushed to disk, then renamed over path, so that
// a reader (the editor) sees the old content or the new one and never a
// part, whatever happens meanwhile. The file gets mode, and the owner of
// like when there is one and setup may give it (matchOwner). check, when
// not nil, runs just before the rename: its error leaves path as it is.
func writeAtomic(path string, data []byte, mode fs.FileMode, like fs.FileInfo, check func() error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return files.Bare(err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(f.Name(), mode); err != nil {
		return err
	}
	if err = matchOwner(f.Name(), like); err != nil {
		return err
	}
	if beforeRename != nil {
		beforeRename(path)
	}
	if check != nil {
		if err = check(); err != nil {
			return err
		}
	}
	if err = rename(f.Name(), path); err != nil {
		return files.Bare(err)
	}
	return syncDir(dir)
}

// indentJSON is the JSON (or JSONC) text b indented as Report shows
// entries, without its comments; b as it is when it does not parse.
func indentJSON(b []byte) []byte {
	min, err := hujson.Minimize(b)
	if err != nil {
		return b
	}
	var buf bytes.Buffer
	if json.Indent(&buf, min, "  ", "  ") != nil {
		return b
	}
	return buf.Bytes()
}

// Report writes what Apply did to stdout, and the next step: the file, the
// entry added or replaced (with the one it replaced), the backup. On a dry
// run stdout gets the file's new content and nothing else, and stderr
// says what it is.
func (r Result) Report(stdout, stderr io.Writer) {
	where := r.Path
	if r.Target != r.Path {
		where = fmt.Sprintf("%s (a link to %s)", r.Path, r.Target)
	}
	if r.DryRun {
		stdout.Write(r.Content)
		what := "with the %q server added"
		switch {
		case r.Unchanged:
			what = "as it is: it already has this %q server"
		case r.Old != nil:
			what = "with the %q server replaced"
		}
		sep := ""
		if len(r.Content) > 0 && !bytes.HasSuffix(r.Content, []byte("\n")) {
			sep = "\n" // the file has no final line break: the note starts a line
		}
		fmt.Fprintf(stderr, sep+"Dry run: above is %s as setup would write it, "+what+"; nothing was written.\n", where, r.Name)
		return
	}
	entry := fmt.Sprintf("  %q: %s\n", r.Name, r.Entry.marshal("  ", "  "))
	switch {
	case r.Unchanged:
		fmt.Fprintf(stdout, "%s already has this %q server; nothing was written:\n%s", where, r.Name, entry)
	case r.Old != nil:
		fmt.Fprintf(stdout, "Replaced the %q server in %s. It was:\n  %q: %s\nIt is now:\n%s", r.Name, where, r.Name, indentJSON(r.Old), entry)
		if len(r.Kept) > 0 {
			fmt.Fprintf(stdout, "It keeps its other settings: %s.\n", strings.Join(r.Kept, ", "))
		}
	case r.Created:
		fmt.Fprintf(stdout, "Created %s with the %q server:\n%s", where, r.Name, entry)
	default:
		fmt.Fprintf(stdout, "Added the %q server to %s:\n%s", r.Name, where, entry)
	}
	if r.Backup != "" {
		fmt.Fprintf(stdout, "The old content is in %s.\n", r.Backup)
	}
	fmt.Fprintf(stdout, "Next: %s\n", r.Editor.Next)
}

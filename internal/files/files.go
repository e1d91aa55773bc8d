// Package files serves the files behind file resources and resource
// templates: confined to their directory (no path out of it, no link that
// leads out), opened without blocking on what is not a regular file, capped
// in size, and typed by name and content.
package files

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/toolhost/toolhost/internal/regular"
)

// DefaultMaxSize is the cap on a served file: 10 MiB. Dir.Read and Read
// use it when given a maxSize of zero or less.
const DefaultMaxSize = 10 << 20

// maxNameLen bounds the length of a name given to Dir.Read, so that an
// absurd name is refused before it reaches the disk.
const maxNameLen = 4096

// ErrNotFound is returned for every refused or missing name: a name that is
// malformed, escapes the directory, is missing, cannot be opened, or is not a
// regular file. The error returned in those cases always has exactly this
// error's message, so that nothing of the file system (paths, or the
// difference between "permission denied" and "no such file") reaches a
// client; errors.Is(err, ErrNotFound) reports true for it.
var ErrNotFound = errors.New("resource not found")

// ErrTooLarge is matched (with errors.Is) by the error returned for a file
// over the size cap. That error's message states the cap, as in "file is
// larger than the 10 MiB limit".
var ErrTooLarge = errors.New("file is larger than the size limit")

// notFoundError is a refusal. Its message is always ErrNotFound's, whatever
// the cause; the cause stays reachable through errors.Is and errors.As for
// the server's own logs and is never part of the message.
type notFoundError struct{ cause error }

func (e *notFoundError) Error() string   { return ErrNotFound.Error() }
func (e *notFoundError) Unwrap() []error { return []error{ErrNotFound, e.cause} }

func notFound(cause error) error { return &notFoundError{cause: cause} }

var (
	errInvalidName = errors.New("invalid resource name")
	errNotRegular  = errors.New("not a regular file")
)

// tooLargeError is the refusal of a file over the size cap.
type tooLargeError struct{ limit int64 }

func (e *tooLargeError) Error() string {
	return "file is larger than the " + formatSize(e.limit) + " limit"
}
func (e *tooLargeError) Unwrap() error { return ErrTooLarge }

// formatSize writes n bytes in the largest binary unit that divides it.
func formatSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// Content is a file read for a resource.
type Content struct {
	// Data is the whole content of the file.
	Data []byte
	// MIMEType is the media type without parameters, guessed from the
	// file's extension (mime.TypeByExtension, plus text/markdown for .md and
	// text/plain for source and config files such as .hcl, .go, .py, .ts),
	// else sniffed from Data (http.DetectContentType). A caller that has a
	// declared type for the resource sets it here in place of the guess.
	MIMEType string
	// Text is true when Data is valid UTF-8 without NUL bytes, to be served
	// as text; false for binary data, to be served as a base64 blob.
	Text bool
}

// Dir is a directory whose files may be served, confined with os.Root so that
// no name can reach outside it, through "..", absolute paths, or symlinks.
// Symlinks whose target stays inside the directory are followed. Each read
// opens the directory at its path anew: a directory replaced since (renamed
// over by a deploy or a sync, deleted and re-created) is served as it is
// now, as result files are read at call time. A Dir is safe for concurrent
// use.
type Dir struct {
	path   string
	closed atomic.Bool
}

// OpenDir checks the directory at path for serving. It fails when path does
// not exist, is not a directory or cannot be opened. The error names path:
// it is meant for the operator (config loading), not for a client.
func OpenDir(path string) (*Dir, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", path)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	_ = root.Close()
	return &Dir{path: abs}, nil
}

// open opens the directory as it is now, for one read or listing.
func (d *Dir) open() (*os.Root, error) {
	if d.closed.Load() {
		return nil, os.ErrClosed
	}
	return os.OpenRoot(d.path)
}

// Close releases the directory. Reads already running finish; later ones
// fail.
func (d *Dir) Close() error {
	d.closed.Store(true)
	return nil
}

// Read reads the file called name inside the directory. name comes from a
// client and is hostile: it is taken literally (nothing is URL-decoded) and
// must be a slash-separated relative path of valid UTF-8 with no empty, "."
// or ".." segment, no leading "/", no backslash, no colon, no NUL byte and
// no Windows device name (on Windows, nothing else that Windows would read
// as another name: see validNameOn); names that are not are refused before
// the disk is touched. The file is then opened
// through the confining root: names that escape it (through symlinks too),
// are missing, are directories, FIFOs or devices are refused. Every refusal
// returns an error whose message is exactly ErrNotFound's.
//
// A file over maxSize bytes (DefaultMaxFileSize when maxSize <= 0) is
// refused with an error matching ErrTooLarge that states the cap, including
// a file that grows past it while it is read.
func (d *Dir) Read(name string, maxSize int64) (*Content, error) {
	if !validName(name) {
		return nil, notFound(errInvalidName)
	}
	root, err := d.open()
	if err != nil {
		return nil, notFound(err)
	}
	defer root.Close()
	// A FIFO or device is refused without being opened (symlinks are
	// followed only inside the root), or, swapped in after the check,
	// without waiting on it.
	f, err := regular.OpenIn(root, name)
	if err != nil {
		return nil, notFoundOpen(err)
	}
	defer f.Close()
	return readOpen(f, name, maxSize)
}

// notFoundOpen is notFound for an error of package regular's opens: one
// for a file that is not regular has errNotRegular as its cause, and the
// *regular.NotRegularError too, which says what the file is.
func notFoundOpen(err error) error {
	var nr *regular.NotRegularError
	if errors.As(err, &nr) {
		return notFound(errors.Join(errNotRegular, nr))
	}
	return notFound(err)
}

// List returns the names of the regular files below the directory, as
// slash-separated relative names that Read accepts, sorted, at most
// maxEntries of them (the first ones in sorted order; no cap when
// maxEntries <= 0). Symlinks are listed when they lead to a regular file
// inside the directory and skipped otherwise; symlinked directories are not
// entered. Subdirectories that cannot be read are skipped.
func (d *Dir) List(maxEntries int) ([]string, error) {
	root, err := d.open()
	if err != nil {
		return nil, scrubPath(err)
	}
	defer root.Close()
	var names []string
	// keep bounds memory on big trees: beyond 2*maxEntries names, only
	// the first maxEntries in sorted order can still be part of the result.
	keep := func() {
		if maxEntries > 0 && len(names) > maxEntries {
			slices.Sort(names)
			names = slices.Clip(names[:maxEntries])
		}
	}
	err = fs.WalkDir(root.FS(), ".", func(name string, e fs.DirEntry, err error) error {
		if err != nil {
			if name == "." {
				return err
			}
			if e != nil && e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if name == "." {
			return nil
		}
		if !validName(name) {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch t := e.Type(); {
		case t.IsDir():
			return nil
		case t.IsRegular():
		case t&fs.ModeSymlink != 0:
			// Stat through the root fails for a target outside it.
			fi, err := root.Stat(name)
			if err != nil || !fi.Mode().IsRegular() {
				return nil
			}
		default:
			return nil
		}
		names = append(names, name)
		if maxEntries > 0 && len(names) >= 2*maxEntries {
			keep()
		}
		return nil
	})
	if err != nil {
		return nil, scrubPath(err)
	}
	slices.Sort(names)
	keep()
	return names, nil
}

// Has reports whether Read would find a regular file called name inside the
// directory: name is checked as Read checks it, and the file is looked up
// through the confining root without being opened, so that a FIFO or device
// is not opened either.
func (d *Dir) Has(name string) bool {
	regular, missing := d.lookup(name)
	return regular && !missing
}

// MayHave reports whether the directory could serve a file called name: a
// name Read accepts, of a regular file there or of none yet (a client may
// subscribe to a file before it is made). A directory, FIFO or device
// there, or a name Read refuses, cannot be served.
func (d *Dir) MayHave(name string) bool {
	regular, missing := d.lookup(name)
	return regular || missing
}

// lookup looks name up in the directory as Has says: regular when it is a
// regular file there, missing when the name is one Read takes and nothing
// is there. Neither, for a name Read refuses, something else there, or a
// directory that cannot be opened.
func (d *Dir) lookup(name string) (regular, missing bool) {
	if !validName(name) {
		return false, false
	}
	root, err := d.open()
	if err != nil {
		return false, false
	}
	defer root.Close()
	fi, err := root.Stat(name)
	if err != nil {
		return false, errors.Is(err, fs.ErrNotExist)
	}
	return fi.Mode().IsRegular(), false
}

// Read reads one declared file (a fixed resource) at path. The file must
// be a regular file (symlinks are followed) of at most maxSize bytes
// (DefaultMaxFileSize when maxSize <= 0). A missing or non-regular file, or
// one that cannot be opened, gives an error whose message is exactly
// ErrNotFound's (the cause is kept for errors.Is and errors.As); a file over
// the cap gives an error matching ErrTooLarge.
func Read(path string, maxSize int64) (*Content, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, notFoundOpen(err)
	}
	defer f.Close()
	return readOpen(f, path, maxSize)
}

// readOpen checks that f is a regular file and reads it whole, capped at
// maxSize. name is used for the media type only.
func readOpen(f *os.File, name string, maxSize int64) (*Content, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, notFound(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notFoundOpen(&regular.NotRegularError{Path: name, Mode: fi.Mode()})
	}
	if fi.Size() > maxSize {
		return nil, &tooLargeError{limit: maxSize}
	}
	return readCapped(f, fi.Size(), name, maxSize)
}

// readCapped reads r whole, refusing more than maxSize bytes even when r
// holds more than the size (statSize) seen before reading. name is used for
// the media type only.
func readCapped(r io.Reader, statSize int64, name string, maxSize int64) (*Content, error) {
	limit := maxSize
	if limit < math.MaxInt64 {
		limit++
	}
	// The buffer starts at the size seen by Stat; LimitReader caps a file
	// that grows while it is read.
	buf := bytes.NewBuffer(make([]byte, 0, min(statSize, maxSize)+1))
	if _, err := buf.ReadFrom(io.LimitReader(r, limit)); err != nil {
		return nil, fmt.Errorf("reading the file: %w", scrubPath(err))
	}
	data := buf.Bytes()
	if int64(len(data)) > maxSize {
		return nil, &tooLargeError{limit: maxSize}
	}
	return &Content{
		Data:     data,
		MIMEType: detectMIME(name, data),
		Text:     utf8.Valid(data) && bytes.IndexByte(data, 0) < 0,
	}, nil
}

// scrubPath drops the path from a *fs.PathError, since the path of a file
// opened through an os.Root is absolute.
func scrubPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// textTypes are media types by extension that take precedence over
// mime.TypeByExtension, whose answer depends on the system's tables (some
// map .ts to video/mp2t, others know nothing of .md).
var textTypes = map[string]string{
	".md":       "text/markdown",
	".markdown": "text/markdown",
	".txt":      "text/plain",
	".text":     "text/plain",
	".log":      "text/plain",
	".hcl":      "text/plain",
	".tf":       "text/plain",
	".tfvars":   "text/plain",
	".go":       "text/plain",
	".mod":      "text/plain",
	".sum":      "text/plain",
	".py":       "text/plain",
	".ts":       "text/plain",
	".tsx":      "text/plain",
	".jsx":      "text/plain",
	".rs":       "text/plain",
	".rb":       "text/plain",
	".java":     "text/plain",
	".kt":       "text/plain",
	".swift":    "text/plain",
	".c":        "text/plain",
	".h":        "text/plain",
	".cc":       "text/plain",
	".cpp":      "text/plain",
	".hpp":      "text/plain",
	".cs":       "text/plain",
	".php":      "text/plain",
	".pl":       "text/plain",
	".lua":      "text/plain",
	".sh":       "text/plain",
	".bash":     "text/plain",
	".zsh":      "text/plain",
	".sql":      "text/plain",
	".proto":    "text/plain",
	".toml":     "text/plain",
	".ini":      "text/plain",
	".cfg":      "text/plain",
	".conf":     "text/plain",
	".env":      "text/plain",
	".rst":      "text/plain",
	".csv":      "text/csv",
	".yaml":     "application/yaml",
	".yml":      "application/yaml",
}

// detectMIME guesses the media type of a file, without parameters: by
// extension, else by sniffing data.
func detectMIME(name string, data []byte) string {
	if t := MIMEByName(name); t != "" {
		return t
	}
	return stripParams(http.DetectContentType(data))
}

// MIMEByName is the media type, without parameters, that a read of the
// file name gives by its extension; "" when only its content can tell.
func MIMEByName(name string) string {
	ext := strings.ToLower(path.Ext(strings.ReplaceAll(name, "\\", "/")))
	if t, ok := textTypes[ext]; ok {
		return t
	}
	if ext != "" {
		if t := mime.TypeByExtension(ext); t != "" {
			return stripParams(t)
		}
	}
	return ""
}

// stripParams drops the parameters (such as "; charset=utf-8") of a media
// type.
func stripParams(t string) string {
	if mt, _, err := mime.ParseMediaType(t); err == nil {
		return mt
	}
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	return strings.ToLower(strings.TrimSpace(t))
}

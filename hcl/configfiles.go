package hcl

// The config files a load reads: how a path becomes the list of files
// (ConfigFiles), how each is read within its cap (ReadConfigFile), and the
// words for a path that names no config file.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolhost/toolhost/internal/regular"
	"github.com/toolhost/toolhost/internal/suggest"
)

// MaxConfigFileSize is the largest config file toolhost reads: 8 MiB,
// about 25,000 tools, whose load takes seconds and hundreds of megabytes
// (BENCHMARKS.md, "Large configs"). A larger one is refused before it is read whole,
// such as a data file named by mistake (a device, such as /dev/zero, is
// not read at all).
const MaxConfigFileSize = 8 << 20

// ErrConfigTooLarge is the error ReadConfigFile returns for a file larger
// than MaxConfigFileSize.
var ErrConfigTooLarge = fmt.Errorf("it is larger than %d MiB, the most a config file may hold (about 25,000 tools); check that the path names a config file, or split the config into several files in a directory", MaxConfigFileSize>>20)

// ReadConfigFile reads the config file name, as os.ReadFile does, but stops
// and returns ErrConfigTooLarge once it has read more than
// MaxConfigFileSize. A path that names anything but a regular file (a
// FIFO, a device, a socket, a directory) gives a *regular.NotRegularError
// at once, without waiting on it; only a pipe toolhost already holds,
// which a shell's <(...) or /dev/stdin names, is read as a file.
func ReadConfigFile(name string) ([]byte, error) {
	return readConfigUpTo(name, MaxConfigFileSize, ErrConfigTooLarge)
}

// readConfigUpTo reads the config file name, or returns tooLarge once it
// has read more than limit bytes.
func readConfigUpTo(name string, limit int64, tooLarge error) ([]byte, error) {
	f, err := regular.Open(name)
	var nr *regular.NotRegularError
	if errors.As(err, &nr) && nr.Mode&fs.ModeNamedPipe != 0 && heldDescriptor(name) {
		f, err = regular.OpenPipe(name)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return regular.ReadUpTo(f, limit, tooLarge)
}

// heldDescriptor reports whether p names a descriptor the process holds
// already, as /dev/fd/63 from a shell's <(...) and /dev/stdin do: a pipe
// there is one its caller handed toolhost, not a FIFO put in a config's
// place.
func heldDescriptor(p string) bool {
	p = filepath.ToSlash(filepath.Clean(p))
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if strings.HasPrefix(p, dir) {
			return true
		}
	}
	return p == "/dev/stdin"
}

// notRegularDetail says that a file the config names (what: "config
// file", "icon file") is not a regular file, and why toolhost reads only
// those. It ends with a full stop; the advice follows.
func notRegularDetail(what string, nr *regular.NotRegularError) string {
	return fmt.Sprintf("The %s %s is %s, not a regular file. toolhost reads only regular files, which it can read without waiting: a FIFO would hold it until a writer comes, a device may never end.", what, nr.Path, regular.Kind(nr.Mode))
}

// IsConfigName reports whether a file of this name in a config directory
// is part of the config: a .hcl name that does not start with a dot.
func IsConfigName(name string) bool {
	return filepath.Ext(name) == ".hcl" && !strings.HasPrefix(name, ".")
}

// DanglingLink reports whether p leads through a symbolic link to
// nothing: p itself, or a directory on its way (a release's "current"),
// a link re-pointed at what is not there (yet). It returns the path p
// leads to, every link on the way followed as the system follows it
// (a relative link from the link's own directory), up to the first part
// missing and the rest as written: what has to be made for p to be there.
func DanglingLink(p string) (target string, ok bool) {
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	sep := string(filepath.Separator)
	// cur is the part of the path resolved so far: no links in it, so
	// that ".." after it is its parent.
	vol := filepath.VolumeName(p)
	cur, parts := ".", strings.Split(p[len(vol):], sep)
	if filepath.IsAbs(p) {
		cur = vol + sep
	}
	links := 0
	for len(parts) > 0 {
		part := parts[0]
		parts = parts[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Join(cur, "..")
			continue
		}
		next := filepath.Join(cur, part)
		info, err := os.Lstat(next)
		if err != nil {
			if links == 0 || !errors.Is(err, os.ErrNotExist) {
				return "", false
			}
			return filepath.Join(append([]string{next}, parts...)...), true
		}
		if info.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > 40 { // a loop, as the system counts
			return "", false
		}
		link, err := os.Readlink(next)
		if err != nil {
			return "", false
		}
		if filepath.IsAbs(link) {
			v := filepath.VolumeName(link)
			cur, link = v+sep, link[len(v):]
		}
		parts = append(strings.Split(link, sep), parts...)
	}
	return "", false
}

// danglingDetail says where a path that leads through a symbolic link to
// nothing leads.
func danglingDetail(p, target string) string {
	if info, err := os.Lstat(p); err == nil && info.Mode()&os.ModeSymlink != 0 {
		return fmt.Sprintf("%s is a symbolic link to %s, which does not exist.", p, target)
	}
	return fmt.Sprintf("%s leads through a symbolic link to %s, which does not exist.", p, target)
}

// inWorkingDir names the working directory a relative path p was looked
// for in, as " in the working directory /home/me": a program started by
// another (an editor starting a server) often runs in one its user did
// not expect. It is "" for an absolute path.
func inWorkingDir(p string) string {
	if filepath.IsAbs(p) {
		return ""
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return " in the working directory " + wd
}

// ConfigFiles expands the paths given on the command line: a file stands for
// itself, a directory for the *.hcl files directly in it, sorted. Names
// that start with a dot are not config in a directory: editors keep their
// lock and backup files beside the file being edited under such names
// (Emacs's .#tools.hcl, a symlink to nowhere while a buffer has unsaved
// changes; macOS's ._tools.hcl on some file systems). A file named on the
// command line is config whatever its name.
func ConfigFiles(paths []string) ([]string, hcl.Diagnostics) {
	var files []string
	var diags hcl.Diagnostics
	seen := map[string]bool{}
	seenFile := map[fileKey]bool{}
	// A file is loaded once however often it is named: by the same path
	// (a directory and a file in it), or through a symbolic link or a hard
	// link (a directory and the same file through a link to it), which
	// would otherwise declare every block twice.
	add := func(p string, info fs.FileInfo) {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		if seen[abs] {
			return
		}
		seen[abs] = true
		if info == nil {
			info, _ = os.Stat(p)
		}
		if key, ok := fileKeyOf(p, info); ok {
			if seenFile[key] {
				return
			}
			seenFile[key] = true
		}
		files = append(files, p)
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			summary, detail := "Config not found", fmt.Sprintf("There is no file or directory at %s%s. Give the path of a tools.hcl file, or of a directory of *.hcl files.", p, inWorkingDir(p))
			if target, ok := DanglingLink(p); ok {
				detail = danglingDetail(p, target) + fmt.Sprintf(" Point the link at the config, or put the config at %s.", target)
			} else if near := nearConfigName(p); near != "" && errors.Is(err, os.ErrNotExist) {
				detail = fmt.Sprintf("There is no file or directory at %s. Did you mean %s?", p, near)
			} else if !errors.Is(err, os.ErrNotExist) {
				// There, but not to be reached: a loop of links, a
				// directory on the way that may not be searched.
				summary, detail = "Cannot read config", fmt.Sprintf("%s cannot be read: %s. Give the path of a tools.hcl file toolhost can read (its links leading to it, its directories searchable), or of a directory of *.hcl files.", p, err)
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  summary,
				Detail:   detail,
			})
			continue
		}
		if !info.IsDir() {
			add(p, info)
			continue
		}
		// Not filepath.Glob: a directory name may hold glob characters.
		var matches []string
		entries, _ := regular.ReadDir(p)
		for _, e := range entries {
			if !e.IsDir() && IsConfigName(e.Name()) {
				matches = append(matches, filepath.Join(p, e.Name()))
			}
		}
		sort.Strings(matches)
		if len(matches) == 0 {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "No config files",
				Detail:   fmt.Sprintf("The directory %s has no *.hcl files. Put the tool declarations in a file such as %s.", p, filepath.Join(p, "tools.hcl")),
			})
		}
		for _, m := range matches {
			add(m, nil)
		}
	}
	return files, diags
}

// nearConfigName returns the path of a config file or directory next to
// p, the path of none, whose name is close to p's (tools.hcl for
// tool.hcl, configs for config), or "".
func nearConfigName(p string) string {
	dir, base := filepath.Split(p)
	read := dir
	if read == "" {
		read = "."
	}
	entries, err := regular.ReadDir(read)
	if err != nil || base == "" {
		return ""
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") || IsConfigName(e.Name()) {
			names = append(names, e.Name())
		}
	}
	if s := suggest.Closest(base, names); s != "" {
		return dir + s
	}
	return ""
}

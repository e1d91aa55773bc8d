package hcl

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/toolhost/toolhost/internal/parallel"
	"github.com/toolhost/toolhost/internal/redact"
	"github.com/toolhost/toolhost/internal/regular"
	"github.com/toolhost/toolhost/internal/suggest"
)

// Config is everything declared in one or more config files, merged.
type Config struct {
	// Server is the server block, or defaults when there is none.
	Server *Server
	// Tools, Resources, ResourceTemplates and Prompts are in file order.
	Tools             []*Tool
	Resources         []*Resource
	ResourceTemplates []*ResourceTemplate
	Prompts           []*Prompt
	// Files are the parsed files by name, for rendering diagnostics.
	Files map[string]*hcl.File
	// Paths are the config files read, in the order read.
	Paths []string
}

// rootSchema is the schema of a config file: its top-level block types.
var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "server"},
		{Type: "tool", LabelNames: []string{"name"}},
		{Type: "resource", LabelNames: []string{"name"}},
		{Type: "resource_template", LabelNames: []string{"name"}},
		{Type: "prompt", LabelNames: []string{"name"}},
	},
}

// Options tune how a config is loaded.
type Options struct {
	// LookupEnv reads environment variables for env(); os.LookupEnv when nil.
	LookupEnv EnvLookup
	// Offline loads the config to serve offline (serve --offline, call
	// --offline): host.Load then reads the tools' examples, which the
	// tools whose offline is OfflineExample answer from.
	Offline bool
}

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

// Load reads the config files or directories at paths with a fresh parser,
// merges them and decodes every block. It reports all problems it finds; the
// Config is usable only when the diagnostics have no errors. Load does no
// I/O beyond reading the config files and checking that files and programs
// they name exist. Example blocks are decoded but not run (see
// host.CheckExamples).
func Load(paths []string, opts *Options) (*Config, hcl.Diagnostics) {
	if opts == nil {
		opts = &Options{}
	}
	cfg := &Config{Files: map[string]*hcl.File{}}
	files, diags := ConfigFiles(paths)
	var bodies []*hcl.File
	var bodyNames []string // the name of each of bodies
	// The files are parsed side by side (see parseFiles); what they give
	// is taken in their order.
	readErrs := make([]error, len(files))
	var readable []string
	var srcs [][]byte
	for i, name := range files {
		src, err := ReadConfigFile(name)
		if readErrs[i] = err; err == nil {
			readable = append(readable, name)
			srcs = append(srcs, src)
		}
	}
	parsed, parseDiags := parseFiles(readable, srcs)
	next := 0 // the index in parsed of the next readable file
	for i, name := range files {
		if err := readErrs[i]; err != nil {
			diags = append(diags, readErrorDiag(name, err))
			continue
		}
		f := parsed[next]
		d := LimitSyntaxErrors(name, explainRedefined(f, ExplainSyntaxErrors(name, srcs[next], parseDiags[next])))
		next++
		diags = append(diags, d...)
		cfg.Paths = append(cfg.Paths, name)
		if f != nil {
			cfg.Files[name] = f
			// A file with syntax errors is not decoded (its blocks would
			// only report the same mistakes again), but the other files
			// are: every file's problems show at once. An argument set
			// twice leaves the file whole (the parser keeps the first),
			// so its other problems show too.
			if !d.HasErrors() || onlyRedefined(d) {
				bodies = append(bodies, f)
				bodyNames = append(bodyNames, name)
			}
		}
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	static := StaticEval(lookup)
	compile := CompileFunctions(lookup)
	var blocks []decodeJob
	for i, f := range bodies {
		content, d := f.Body.Content(rootSchema)
		diags = append(diags, d...)
		for _, block := range content.Blocks {
			blocks = append(blocks, decodeJob{block: block, baseDir: filepath.Dir(bodyNames[i]), mayCallNow: mentionsNow(f.Bytes, block)})
		}
	}
	// The server block goes first: its network policy applies to every
	// http tool.
	var network netpolicy.Policy
	for i := range blocks {
		if blocks[i].block.Type == "server" {
			blocks[i].decode(static)
			if s, ok := blocks[i].result.(*Server); ok {
				network = s.Network
			}
		}
	}
	for i := range blocks {
		blocks[i].network = network
		blocks[i].compile = compile
		blocks[i].lookup = lookup
	}
	decodeAll(blocks, static)
	for _, j := range blocks {
		diags = append(diags, j.diags...)
		switch v := j.result.(type) {
		case *Server:
			if cfg.Server != nil {
				diags = append(diags, duplicate("server block", "", j.block.DefRange, cfg.Server.DeclRange, oneServerBlock))
				continue
			}
			cfg.Server = v
		case *Tool:
			cfg.Tools = append(cfg.Tools, v)
		case *Resource:
			cfg.Resources = append(cfg.Resources, v)
		case *ResourceTemplate:
			cfg.ResourceTemplates = append(cfg.ResourceTemplates, v)
		case *Prompt:
			cfg.Prompts = append(cfg.Prompts, v)
		}
	}
	if cfg.Server == nil {
		cfg.Server = defaultServer()
	}
	if len(files) > 0 && len(cfg.Paths) == len(files) && !diags.HasErrors() &&
		len(cfg.Tools)+len(cfg.Resources)+len(cfg.ResourceTemplates)+len(cfg.Prompts) == 0 {
		diags = append(diags, nothingDeclared(files))
	}
	diags = append(diags, cfg.checkDuplicates()...)
	fixFunctionDiags(diags)
	fixLabelDiags(diags)
	redactEnvValues(diags, cfg.Files, lookup)
	return cfg, diags
}

// readErrorDiag reports a config file that cannot be read. Its subject
// names the file (for --format json and github); its text is not there to
// show.
func readErrorDiag(name string, err error) *hcl.Diagnostic {
	summary, detail := "Cannot read config", fmt.Sprintf("The config file %s cannot be read: %s.", name, err)
	if target, ok := DanglingLink(name); ok {
		detail = "The config file " + danglingDetail(name, target) + " Point the link at an existing file, or remove it: every *.hcl file of a config directory is config."
	}
	var nr *regular.NotRegularError
	switch {
	case errors.Is(err, ErrConfigTooLarge):
		summary, detail = "Config file too large", fmt.Sprintf("The config file %s was not read: %s.", name, err)
	case errors.As(err, &nr):
		summary, detail = "Config not a regular file", notRegularDetail("config file", nr)+" Give the path of a regular file (in a config directory, every *.hcl name must be one)."
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   detail,
		Subject:  &hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.InitialPos},
	}
}

// fixLabelDiags rewrites HCL's details for a block without its name or
// with labels too many ("All tool blocks must have 1 labels (name).",
// "Only 1 labels (name) are expected for tool blocks.") as what to write.
func fixLabelDiags(diags hcl.Diagnostics) {
	for _, d := range diags {
		var typ, list string
		var missing bool
		if rest, ok := strings.CutPrefix(d.Detail, "All "); ok {
			// "All TYPE blocks must have N labels (NAMES)."
			var found bool
			typ, rest, found = strings.Cut(rest, " blocks must have ")
			_, rest, ok = strings.Cut(rest, " labels (")
			list, missing = strings.CutSuffix(rest, ").")
			if !found || !ok || !missing {
				continue
			}
		} else if rest, ok := strings.CutPrefix(d.Detail, "Only "); ok {
			// "Only N labels (NAMES) are expected for TYPE blocks."
			_, rest, ok = strings.Cut(rest, " labels (")
			var found bool
			list, rest, found = strings.Cut(rest, ") are expected for ")
			var ok2 bool
			typ, ok2 = strings.CutSuffix(rest, " blocks.")
			if !ok || !found || !ok2 {
				continue
			}
		} else {
			continue
		}
		names := strings.Split(list, ", ")
		example := typ
		for _, n := range names {
			example += fmt.Sprintf(" %q", strings.ToUpper(n))
		}
		a := "A"
		if strings.ContainsAny(typ[:min(1, len(typ))], "aeiou") {
			a = "An"
		}
		if missing {
			d.Detail = fmt.Sprintf("%s %s block needs its %s in quotes after the word %s, as in: %s { ... }.", a, typ, strings.Join(names, " and "), typ, example)
		} else {
			d.Detail = fmt.Sprintf("%s %s block takes only its %s, as in: %s { ... }; remove the other labels.", a, typ, strings.Join(names, " and "), example)
		}
	}
}

// nothingDeclared is the warning of a config that declares no tool,
// resource, resource template or prompt: valid, but a client gets nothing
// from it (an empty file, or the wrong one).
func nothingDeclared(files []string) *hcl.Diagnostic {
	what := files[0] + " declares"
	if len(files) > 1 {
		what = fmt.Sprintf("%s and the %s with it declare", files[0], pluralFiles(len(files)-1))
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  "Nothing declared",
		Detail: fmt.Sprintf("%s no tool, resource, resource template or prompt, so a client gets nothing from this server. "+
			"Check that this is the config you meant, and add a tool block, as in tool \"hello\" { template { text = \"Hello!\" } }; toolhost init writes a starting config.", what),
		Subject: &hcl.Range{Filename: files[0], Start: hcl.InitialPos, End: hcl.InitialPos},
	}
}

// pluralFiles says "other file" or "N other files", for messages.
func pluralFiles(n int) string {
	if n == 1 {
		return "other file"
	}
	return fmt.Sprintf("%d other files", n)
}

// redactEnvValues removes from the diagnostics the values of the
// environment variables the config reads with env(): they are often
// credentials, and diagnostics end up in CI logs and pull-request
// annotations. A diagnostic about such a value says (redacted) instead.
func redactEnvValues(diags hcl.Diagnostics, files map[string]*hcl.File, lookup EnvLookup) {
	if len(diags) == 0 {
		return
	}
	var secrets []string
	for _, f := range files {
		body, ok := f.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
			call, ok := n.(*hclsyntax.FunctionCallExpr)
			if !ok || call.Name != "env" || len(call.Args) == 0 {
				return nil
			}
			name, d := call.Args[0].Value(nil)
			if d.HasErrors() || name.Type() != cty.String || name.IsNull() || !name.IsKnown() {
				return nil
			}
			if v, ok := lookup(name.AsString()); ok {
				secrets = append(secrets, v)
			}
			return nil
		})
	}
	if len(secrets) == 0 {
		return
	}
	for _, d := range diags {
		d.Summary = redact.Redact(d.Summary, secrets)
		d.Detail = redact.Redact(d.Detail, secrets)
	}
}

// checkDuplicates reports names and URIs declared twice, pointing at both.
func (c *Config) checkDuplicates() hcl.Diagnostics {
	var diags hcl.Diagnostics
	check := func(kind string, names []string, ranges []hcl.Range) {
		rule := uniqueAcrossFiles
		if kind == "resource URI" {
			rule = "Each resource has its own URI, across all config files; change or remove one of them."
		}
		first := map[string]hcl.Range{}
		for i, n := range names {
			if prev, ok := first[n]; ok {
				diags = append(diags, duplicate(kind, n, ranges[i], prev, rule))
				continue
			}
			first[n] = ranges[i]
		}
	}
	var names []string
	var ranges []hcl.Range
	for _, t := range c.Tools {
		names, ranges = append(names, t.Name), append(ranges, t.DeclRange)
	}
	check("tool", names, ranges)
	names, ranges = nil, nil
	for _, p := range c.Prompts {
		names, ranges = append(names, p.Name), append(ranges, p.DeclRange)
	}
	check("prompt", names, ranges)
	names, ranges = nil, nil
	for _, r := range c.Resources {
		names, ranges = append(names, r.Name), append(ranges, r.DeclRange)
	}
	for _, r := range c.ResourceTemplates {
		names, ranges = append(names, r.Name), append(ranges, r.DeclRange)
	}
	check("resource", names, ranges)
	names, ranges = nil, nil
	for _, r := range c.Resources {
		names, ranges = append(names, r.URI), append(ranges, r.URIRange)
	}
	check("resource URI", names, ranges)
	return diags
}

// duplicate is the diagnostic for a name declared twice: it points at the
// second declaration and names the first, as file:line:col. rule says
// where the name must be unique, and what to do, as a sentence.
func duplicate(kind, name string, at, prev hcl.Range, rule string) *hcl.Diagnostic {
	what := kind
	if name != "" {
		what = fmt.Sprintf("%s %q", kind, name)
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Duplicate " + kind,
		Detail:   fmt.Sprintf("The %s is already declared at %s. %s", what, posString(prev), rule),
		Subject:  at.Ptr(),
		Extra:    DuplicateOf{First: prev, What: what},
	}
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

// explainRedefined rewrites the "Attribute redefined" errors of HCL's
// native parser, which name the first place as HCL prints a range
// (tools.hcl:8,3-14), as toolhost's other duplicates are: "Duplicate
// argument", the first place as file:line:col, and a DuplicateOf, so that
// --format github marks the first too.
func explainRedefined(f *hcl.File, diags hcl.Diagnostics) hcl.Diagnostics {
	if f == nil {
		return diags
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return diags
	}
	var out hcl.Diagnostics
	for i, d := range diags {
		if d.Summary != "Attribute redefined" || d.Subject == nil {
			continue
		}
		at := *d.Subject
		if at.Start.Byte < 0 || at.End.Byte > len(f.Bytes) || at.Start.Byte >= at.End.Byte {
			continue
		}
		name := string(f.Bytes[at.Start.Byte:at.End.Byte])
		first, ok := innermostBody(body, at.Start.Byte).Attributes[name]
		if !ok {
			continue
		}
		if out == nil {
			out = slices.Clone(diags)
		}
		out[i] = duplicate("argument", name, at, first.NameRange, "Each argument may be set only once; remove one of them.")
	}
	if out == nil {
		return diags
	}
	return out
}

// innermostBody returns the body of the innermost block of body that holds
// the offset at, or body itself.
func innermostBody(body *hclsyntax.Body, at int) *hclsyntax.Body {
	for _, b := range body.Blocks {
		if r := b.Body.SrcRange; r.Start.Byte <= at && at < r.End.Byte {
			return innermostBody(b.Body, at)
		}
	}
	return body
}

// onlyRedefined reports whether every error of a file's syntax diagnostics
// is an argument set twice (see explainRedefined).
func onlyRedefined(diags hcl.Diagnostics) bool {
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if dup, ok := d.Extra.(DuplicateOf); !ok || !strings.HasPrefix(dup.What, "argument ") {
			return false
		}
	}
	return true
}

// DuplicateOf is the Extra of a "Duplicate ..." diagnostic, whose Subject
// is the second declaration: the first one, and what is declared twice
// (as in tool "greet"), so that an output that annotates places (validate
// --format github) can mark both.
type DuplicateOf struct {
	First hcl.Range
	What  string
}

// The rules duplicate states.
const (
	uniqueAcrossFiles = "Names must be unique across all config files; rename or remove one of them."
	oneServerBlock    = "A config has one server block, across all its files; merge the two, or remove one."
)

// uniqueIn is the rule for names unique within one block, as in
// uniqueIn("parameter", "a tool").
func uniqueIn(what, where string) string {
	return fmt.Sprintf("The %s names of %s must be unique; rename or remove one of them.", what, where)
}

// oneIn is the rule for a block that may appear once in another.
func oneIn(block, where string) string {
	return fmt.Sprintf("%s has at most one %s block; merge the two, or remove one.", where, block)
}

// decodeJob is one top-level block to decode, and what decoding it gave.
type decodeJob struct {
	block   *hcl.Block
	baseDir string
	network netpolicy.Policy
	// compile are the functions of expressions evaluated at call time, and
	// lookup reads the environment for env() warnings.
	compile map[string]function.Function
	lookup  EnvLookup
	// mayCallNow is whether the block's text has "now" or "timestamp" in
	// it: only then does callTimeNowChecks look at its expressions.
	mayCallNow bool
	done       bool
	result     any
	diags      hcl.Diagnostics
}

// decodeBlocksPerWorker is the fewest blocks a goroutine of decodeAll is
// given. Blocks are independent of each other, and even a small config
// such as examples/tools.hcl decodes faster on two cores (BENCHMARKS.md,
// "Cold start on both cores").
const decodeBlocksPerWorker = 2

// decodeAll decodes the blocks, on every free processor. Results keep
// their order.
func decodeAll(jobs []decodeJob, static *hcl.EvalContext) {
	parallel.For(len(jobs), decodeBlocksPerWorker, func(i int) { jobs[i].decode(static) })
}

// decode decodes the job's block by its type, once: the server block is
// decoded before the others, and decodeAll skips it then.
func (j *decodeJob) decode(static *hcl.EvalContext) {
	if j.done {
		return
	}
	j.done = true
	var d hcl.Diagnostics
	switch j.block.Type {
	case "server":
		var s *Server
		s, d = decodeServer(j.block, static)
		if s != nil {
			j.result = s
		}
	case "tool":
		var t *Tool
		t, d = decodeTool(j.block, static, j.compile, j.baseDir, j.network)
		if t != nil {
			j.result = t
			d = append(d, lintTool(j.block, t, static, j.lookup, d)...)
		}
	case "resource":
		var r *Resource
		r, d = decodeResource(j.block, static, j.compile, j.baseDir, j.network)
		if r != nil {
			j.result = r
		}
	case "resource_template":
		var r *ResourceTemplate
		r, d = decodeResourceTemplate(j.block, static, j.compile, j.baseDir, j.network)
		if r != nil {
			j.result = r
		}
	case "prompt":
		var p *Prompt
		p, d = decodePrompt(j.block, static, j.baseDir)
		if p != nil {
			j.result = p
		}
	}
	switch j.block.Type {
	case "tool", "resource", "resource_template": // what has backends
		if j.mayCallNow {
			d = append(d, callTimeNowChecks(j.block, j.lookup, d)...)
		}
	}
	j.diags = d
}

// mentionsNow reports whether the text of a block of src has "now" or
// "timestamp" in it (true when the block's text cannot be found).
func mentionsNow(src []byte, block *hcl.Block) bool {
	body, ok := block.Body.(*hclsyntax.Body)
	if !ok {
		return true
	}
	start, end := block.DefRange.Start.Byte, body.SrcRange.End.Byte
	if start < 0 || end > len(src) || start > end {
		return true
	}
	text := src[start:end]
	return bytes.Contains(text, []byte("now")) || bytes.Contains(text, []byte("timestamp"))
}

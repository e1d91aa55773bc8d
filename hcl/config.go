package hcl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/netpolicy"
	"github.com/toolhost/toolhost/internal/parallel"
	"github.com/toolhost/toolhost/internal/redact"
	"github.com/toolhost/toolhost/internal/regular"
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
	// Groups are the group blocks, in file order.
	Groups []*Group
	// Files are the parsed files by name, for rendering diagnostics.
	Files map[string]*hcl.File
	// Paths are the config files read, in the order read.
	Paths []string

	// reuse is what a later load may take from this one (see
	// Options.Previous); nil once DropReuse is called.
	reuse *reuse
	// moved and movedTools: see Options.TakeMoved and Moved.
	moved      map[*hclsyntax.Body]int
	movedTools map[string]bool
}

// rootSchema is the schema of a config file: its top-level block types.
var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "server"},
		{Type: "tool", LabelNames: []string{"name"}},
		{Type: "resource", LabelNames: []string{"name"}},
		{Type: "resource_template", LabelNames: []string{"name"}},
		{Type: "prompt", LabelNames: []string{"name"}},
		{Type: "group", LabelNames: []string{"name"}},
		{Type: "source", LabelNames: []string{"name"}},
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
	// Previous is the config in service, when this load replaces it (a
	// reload): the files, pieces of files and tool blocks whose source is
	// the same, at the same place, are taken from it instead of parsed and
	// decoded again (see reuse). Its tools may so be shared with the new
	// config, backends included: whoever closes backends must count
	// them. nil for a load from scratch.
	Previous *Config
	// TakeMoved lets a reload take from Previous, as they are, the bare
	// pieces (see dropTrees) that an edit above them moved: their bytes
	// are the same, but they start elsewhere in the file now. Their tools
	// are Previous's, with the source ranges of where they were, so the
	// config is servable but not yet right: Moved names those tools, whose
	// call-time errors name those places until a load without TakeMoved
	// has parsed the pieces where they are (host's Reloader does so at
	// once). A reload's first load so costs about what parsing the edit
	// costs, not a parse of everything after it.
	TakeMoved bool
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
	cfg, diags := load(paths, opts, false)
	if cfg == nil {
		// A block of a bare piece must be decoded again (see dropTrees).
		cfg, diags = load(paths, opts, true)
	}
	return cfg, diags
}

// load is Load. Unless full is set, it may take bare pieces from the load
// before, and returns nil when one of their blocks must be decoded again:
// the caller then loads again with full set. It is long for the steps of
// a load, one after another.
func load(paths []string, opts *Options, full bool) (*Config, hcl.Diagnostics) {
	cfg := &Config{Files: map[string]*hcl.File{}}
	files, diags := ConfigFiles(paths)
	var prev *reuse
	if opts.Previous != nil {
		prev = opts.Previous.reuse
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	static := StaticEval(lookup)
	compile := CompileFunctions(lookup)
	early := &earlyDecoder{static: static, compile: compile, lookup: lookup, envFixed: opts.LookupEnv == nil, jobs: map[*hclsyntax.Body]*decodeJob{}}
	bodies, bodyNames, d := cfg.parseAll(files, prev, full, opts.TakeMoved, early)
	diags = append(diags, d...)
	var blocks []decodeJob
	for i, f := range bodies {
		content, d := f.Body.Content(rootSchema)
		diags = append(diags, d...)
		for _, block := range content.Blocks {
			blocks = append(blocks, decodeJob{block: block, src: f.Bytes, baseDir: filepath.Dir(bodyNames[i]), mayCallNow: mentionsNow(f.Bytes, block), mayUseClaim: mentionsClaim(f.Bytes, block), envFixed: opts.LookupEnv == nil})
		}
	}
	deps := takeDecoded(blocks, prev, cfg.moved)
	if !full && undecodedBare(blocks, early) {
		early.discard()
		return nil, nil
	}
	early.apply(blocks)
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
	sources := decodeSources(blocks, static)
	for i := range blocks {
		blocks[i].network = network
		blocks[i].sources = sources
		blocks[i].compile = compile
		blocks[i].lookup = lookup
	}
	decodeAll(blocks, static)
	keepDecoded(blocks, cfg.reuse, deps)
	cfg.noteMovedTools(blocks)
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
		case *Group:
			cfg.Groups = append(cfg.Groups, v)
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
	diags = append(diags, cfg.checkGroups()...)
	diags = append(diags, cfg.checkClaimsAuth()...)
	diags = append(diags, cfg.checkExchangeAuth()...)
	fixFunctionDiags(diags)
	fixLabelDiags(diags)
	redactEnvValues(diags, cfg.Files, lookup)
	cfg.dropTrees(blocks)
	return cfg, diags
}

// parseAll reads and parses files, side by side, taking from prev what did
// not change (but no bare piece when full is set), decoding tool blocks
// early (see earlyDecoder), and records each in cfg. It returns the files to decode
// (those without syntax errors, or whose only error is an argument set
// twice), their names, and the problems of reading and parsing.
func (cfg *Config) parseAll(files []string, prev *reuse, full, takeMoved bool, early *earlyDecoder) ([]*hcl.File, []string, hcl.Diagnostics) {
	var diags hcl.Diagnostics
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
	cfg.reuse = newReuse()
	cfg.reuse.full, cfg.reuse.early = full, early
	cfg.reuse.takeMoved = takeMoved && !full
	parsed, parseDiags := parseFiles(readable, srcs, prev, cfg.reuse)
	cfg.moved = cfg.reuse.moved
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
	return bodies, bodyNames, diags
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
	block *hcl.Block
	// src is the text of the block's file.
	src     []byte
	baseDir string
	// key is what the block's decoding is kept under for the next load,
	// when keep is set (see reuse).
	key     [32]byte
	keep    bool
	network netpolicy.Policy
	sources map[string]*adapters.Source
	// compile are the functions of expressions evaluated at call time, and
	// lookup reads the environment for env() warnings.
	compile map[string]function.Function
	lookup  EnvLookup
	// mayCallNow is whether the block's text has "now" or "timestamp" in
	// it: only then does callTimeNowChecks look at its expressions.
	mayCallNow bool
	// mayUseClaim is whether it has "claim": only then are its calls of
	// claim() looked for.
	mayUseClaim bool
	// envFixed is whether env() reads the process's environment, which
	// does not change while it runs: then a block that reads it may be
	// kept for the next load (see hasReusableWord).
	envFixed bool
	done     bool
	result   any
	diags    hcl.Diagnostics
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
		t, d = decodeTool(j.block, static, j.compile, j.baseDir, j.network, j.sources)
		if t != nil {
			j.result = t
			d = append(d, lintTool(j.block, t, static, j.lookup, d)...)
			if j.mayUseClaim {
				d = append(d, t.findClaims(j.block)...)
			}
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
			if j.mayUseClaim {
				d = append(d, p.findClaims(j.block)...)
			}
		}
	case "group":
		var g *Group
		if g, d = decodeGroup(j.block, static); g != nil {
			j.result = g
		}
	}
	switch j.block.Type {
	case "tool", "resource", "resource_template": // what has backends
		if j.mayCallNow {
			d = append(d, callTimeNowChecks(j.block, j.lookup, d)...)
		}
	}
	if j.mayUseClaim && (j.block.Type == "resource" || j.block.Type == "resource_template") {
		d = append(d, claimsInResource(j.block)...)
	}
	j.diags = d
}

// mentionsNow reports whether the text of a block of src has "now" or
// "timestamp" in it (true when the block's text cannot be found).
func mentionsNow(src []byte, block *hcl.Block) bool {
	return blockMentions(src, block, "now", "timestamp")
}

// blockMentions reports whether the text of a block of src has one of
// words in it (true when the block's text cannot be found).
func blockMentions(src []byte, block *hcl.Block, words ...string) bool {
	body, ok := block.Body.(*hclsyntax.Body)
	if !ok {
		return true
	}
	start, end := block.DefRange.Start.Byte, body.SrcRange.End.Byte
	if start < 0 || end > len(src) || start > end {
		return true
	}
	text := src[start:end]
	for _, w := range words {
		if bytes.Contains(text, []byte(w)) {
			return true
		}
	}
	return false
}

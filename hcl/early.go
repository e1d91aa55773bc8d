package hcl

import (
	"bytes"
	"path/filepath"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/toolhost/toolhost/internal/netpolicy"
)

// earlyDecoder decodes the tool blocks of a piece of a large file as soon
// as the piece is parsed, on the goroutine that parsed it, and makes the
// piece bare (see dropTrees) when every block of it is a tool block that
// decoded without a diagnostic and is kept for the next load. The syntax
// tree of the piece is then garbage at once, and the trees of the whole
// file never live at the same time: for 10,000 tools the largest heap a
// load keeps live, and so the heap the GC lets it grow to, is less than
// half what it was (BENCHMARKS.md, "10,000 tools in less memory").
//
// A tool block's decoding depends on the server block's network policy
// (and on source blocks, but a block that names one is not kept: see
// reusableWords), so parseFiles parses first every file parsed whole and
// every piece whose text has "server" or "source" in it, then calls ready,
// then parses the other pieces. Load then takes each result for the block
// it was decoded from (apply), as if decodeAll had decoded it.
type earlyDecoder struct {
	static  *hcl.EvalContext
	compile map[string]function.Function
	lookup  EnvLookup
	// envFixed: see decodeJob.
	envFixed bool
	// on is set by ready when blocks may be decoded early; network is the
	// server block's network policy.
	on      bool
	network netpolicy.Policy
	mu      sync.Mutex
	// jobs are the blocks decoded early, by the body of the block Load
	// finds (bare or not).
	jobs map[*hclsyntax.Body]*decodeJob
}

// earlyWords are the words of a piece that make it parsed before ready.
var earlyWords = [][]byte{[]byte("server"), []byte("source")}

// first reports whether a piece's text is parsed before ready: whether it
// may hold a server or a source block.
func (e *earlyDecoder) first(text []byte) bool {
	for _, w := range earlyWords {
		if bytes.Contains(text, w) {
			return true
		}
	}
	return false
}

// ready is called once the files parsed whole and the pieces first
// reports are parsed (units, each nil when it has a diagnostic): it
// decodes their server block for its network policy, and turns early
// decoding on unless a file is in JSON syntax, a unit has a diagnostic,
// or there is more than one server block (Load reports that).
func (e *earlyDecoder) ready(names []string, units []*hcl.File) {
	for _, n := range names {
		if isJSON(n) {
			return
		}
	}
	var server *hcl.Block
	for _, f := range units {
		if f == nil {
			return
		}
		content, _, _ := f.Body.PartialContent(&hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "server"}}})
		for _, b := range content.Blocks {
			if server != nil {
				return
			}
			server = b
		}
	}
	if server != nil {
		s, _ := decodeServer(server, e.static)
		if s == nil {
			return
		}
		e.network = s.Network
	}
	e.on = true
}

// decodePiece decodes the blocks of a piece of the file name (src) parsed
// without a diagnostic, when early decoding is on and every block of it is
// a tool block that may be kept (see reusableWords). It returns the piece,
// bare when every block decoded without a diagnostic.
func (e *earlyDecoder) decodePiece(name string, src []byte, f *hcl.File) *hcl.File {
	if e == nil || !e.on {
		return f
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok || len(body.Attributes) > 0 || len(body.Blocks) == 0 {
		return f
	}
	jobs := make([]decodeJob, len(body.Blocks))
	for i, b := range body.Blocks {
		if b.Type != "tool" || len(b.Labels) != 1 {
			return f
		}
		hb := b.AsHCLBlock()
		text, ok := blockText(src, hb)
		if !ok || hasReusableWord(text, e.envFixed) {
			return f
		}
		jobs[i] = decodeJob{block: hb, src: src, baseDir: filepath.Dir(name), network: e.network,
			compile: e.compile, lookup: e.lookup, mayCallNow: mentionsNow(src, hb), mayUseClaim: mentionsClaim(src, hb), envFixed: e.envFixed}
	}
	clean := true
	for i := range jobs {
		jobs[i].decode(e.static)
		if _, ok := jobs[i].result.(*Tool); !ok || len(jobs[i].diags) > 0 {
			clean = false
		}
	}
	out := f
	blocks := body.Blocks
	if clean {
		out = bareFile(body)
		blocks = out.Body.(*hclsyntax.Body).Blocks
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, b := range blocks {
		// Load's job has the block and the file's bytes; this one's
		// block would keep the syntax tree.
		jobs[i].block, jobs[i].src = nil, nil
		e.jobs[b.Body] = &jobs[i]
	}
	return out
}

// apply gives each block of jobs not decoded yet (nor taken from the load
// before) what decodePiece decoded for it, and closes the backends of
// what it decoded for no block of jobs (a file with a syntax error is not
// decoded; a tool taken from the load before is used as it was).
func (e *earlyDecoder) apply(jobs []decodeJob) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range jobs {
		j := &jobs[i]
		body, ok := j.block.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		if d, ok := e.jobs[body]; ok && !j.done {
			j.done, j.result, j.diags = true, d.result, d.diags
			delete(e.jobs, body)
		}
	}
	e.closeRest()
}

// closeRest closes the backends of the tools decoded early and not taken
// by apply. It is called with e.mu held.
func (e *earlyDecoder) closeRest() {
	for body, j := range e.jobs {
		if t, ok := j.result.(*Tool); ok && t.Backend != nil {
			_ = t.Backend.Close()
		}
		delete(e.jobs, body)
	}
}

// discard closes the backends of every tool decoded early: for a load
// that starts over.
func (e *earlyDecoder) discard() {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closeRest()
}

// hasReusableWord reports whether a tool block's text has one of
// reusableWords in it, or "env" unless envFixed says env() reads the
// process's environment: then it is decoded again at every load.
func hasReusableWord(text []byte, envFixed bool) bool {
	for _, w := range reusableWords {
		if bytes.Contains(text, w) {
			return true
		}
	}
	return !envFixed && bytes.Contains(text, []byte("env"))
}

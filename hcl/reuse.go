package hcl

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/toolhost/toolhost/internal/parallel"
)

// reuse is what one load leaves for the next (Options.Previous): the
// pieces of its files it parsed without a diagnostic, and the tool blocks
// it decoded without one. A reload that finds the same source at the same
// place takes them instead of parsing and decoding again, so that editing
// one tool of a large config costs about one tool.
//
// Everything is keyed by the bytes it came from and by where they start
// (file, byte offset, line, column), since the results hold source ranges
// that diagnostics at call time and their snippets point with: a block an
// edit above moved is parsed and decoded again. A decoded block is keyed
// also by what it may depend on beyond its own text (see dependsOn and
// reusable), and only a tool block that gave no diagnostic at all is kept.
type reuse struct {
	mu     sync.Mutex
	pieces map[pieceKey]*hcl.File
	blocks map[[32]byte]*Tool
	// keys are the keys of the top-level blocks of the pieces kept, by
	// their bodies, and deps what they were made with (see dependsOn):
	// a later load that takes a piece, and finds the same deps, takes its
	// blocks' keys too, rather than hashing their text again.
	keys map[*hclsyntax.Body]blockKeyed
	deps []byte
	// full is set on a load that must parse every block: it takes no bare
	// piece (see dropTrees).
	full bool
	// early decodes the tool blocks of the pieces the load parses (nil:
	// none; see earlyDecoder).
	early *earlyDecoder
	// byText finds a kept piece by its file and bytes alone, wherever it
	// starts, for a load that takes moved pieces (see movedPiece).
	byText map[textKey]pieceKey
	// takeMoved and moved: see Options.TakeMoved and movedPiece.
	takeMoved bool
	moved     map[*hclsyntax.Body]int
}

// pieceKey names a parsed piece of a file (or a whole file, start -1): the
// file, where the piece starts, and the SHA-256 of its bytes.
type pieceKey struct {
	name             string
	start, line, col int
	sum              [32]byte
}

// blockKeyed is a block's key, and whether its decoding is kept under it
// (see blockKey).
type blockKeyed struct {
	key  [32]byte
	keep bool
}

func newReuse() *reuse {
	return &reuse{pieces: map[pieceKey]*hcl.File{}, blocks: map[[32]byte]*Tool{}, keys: map[*hclsyntax.Body]blockKeyed{}, byText: map[textKey]pieceKey{}}
}

// piece returns the parsed piece of prev (nil-safe) under key.
func (r *reuse) piece(key pieceKey) *hcl.File {
	if r == nil {
		return nil
	}
	return r.pieces[key]
}

// keepPiece records a piece parsed without a diagnostic. Its Bytes are
// dropped: the body holds no reference to them, and keeping them would
// keep every version of a file a piece was first parsed from.
func (r *reuse) keepPiece(key pieceKey, f *hcl.File) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if f.Bytes != nil {
		cp := *f
		cp.Bytes = nil
		f = &cp
	}
	r.pieces[key] = f
	if key.start >= 0 {
		r.byText[textKey{key.name, key.sum}] = key
	}
}

// wholeKey is the pieceKey of a file parsed whole.
func wholeKey(name string, src []byte) pieceKey {
	return pieceKey{name: name, start: -1, sum: sha256.Sum256(src)}
}

// pieceKeyAt is the pieceKey of src[start:end], which starts on line.
func pieceKeyAt(name string, src []byte, start, end, line int) pieceKey {
	return pieceKey{name: name, start: start, line: line, col: 1, sum: sha256.Sum256(src[start:end])}
}

// reusableWords are words whose presence in a tool block's text makes it
// decode again at every load: what it decodes to may depend on more than
// the text (a file read at load by file() or an icon, a program looked up
// on the PATH by exec, a source block's connection, the clock now() and
// timestamp() read at load). A false match costs a decode, never a wrong
// result. An environment variable env() reads at load is the same at
// every load of a process, which no one can change from outside it: a
// block with "env" is kept unless the load was given its own LookupEnv
// (see hasReusableWord).
var reusableWords = [][]byte{[]byte("file"), []byte("exec"), []byte("source"), []byte("icon"), []byte("now"), []byte("timestamp")}

// blockText returns the text of a top-level block in src, from its type to
// its closing brace, and false when it cannot be found.
func blockText(src []byte, block *hcl.Block) ([]byte, bool) {
	body, ok := block.Body.(*hclsyntax.Body)
	if !ok {
		return nil, false
	}
	start, end := block.DefRange.Start.Byte, body.SrcRange.End.Byte
	if start < 0 || end > len(src) || start > end {
		return nil, false
	}
	return src[start:end], true
}

// dependsOn hashes what every block's decoding may depend on beyond its
// own text: the server block (its network policy applies to every http
// tool) and the source blocks, with where they are. Any change of them
// decodes every block again. nil when one of them is not in native
// syntax: then no block is kept or taken.
func dependsOn(jobs []decodeJob) []byte {
	h := sha256.New()
	h.Write([]byte("toolhost reuse 1\x00"))
	for i := range jobs {
		b := jobs[i].block
		if b.Type != "server" && b.Type != "source" {
			continue
		}
		text, ok := blockText(jobs[i].src, b)
		if !ok {
			return nil // in JSON syntax: nothing is kept or taken
		}
		writeText(h, b.Type, text, b.DefRange)
	}
	return h.Sum(nil)
}

// writeText writes a block's kind, place and text to h, each with its
// length, so that no two differ only in where one ends.
func writeText(h hash.Hash, kind string, text []byte, at hcl.Range) {
	var n [8]byte
	for _, s := range [][]byte{[]byte(kind), []byte(at.Filename), text} {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write(s)
	}
	for _, v := range []int{at.Start.Byte, at.Start.Line, at.Start.Column} {
		binary.LittleEndian.PutUint64(n[:], uint64(v))
		h.Write(n[:])
	}
}

// blockKey is the key a tool block's decoding is kept under, and false
// when the block is not kept (see reusableWords).
func blockKey(deps []byte, j *decodeJob) ([32]byte, bool) {
	var key [32]byte
	if j.block.Type != "tool" {
		return key, false
	}
	text, ok := blockText(j.src, j.block)
	if !ok {
		return key, false
	}
	if hasReusableWord(text, j.envFixed) {
		return key, false
	}
	h := sha256.New()
	h.Write(deps)
	h.Write([]byte(j.baseDir))
	writeText(h, "tool", text, j.block.DefRange)
	copy(key[:], h.Sum(nil))
	return key, true
}

// takeDecoded looks up the tool blocks of jobs in prev, and marks those it
// finds as decoded, with the tool prev decoded. A block of a piece taken
// from prev, with the same deps, has the key prev gave it; the others are
// hashed, on every free processor, but those of moved pieces (see
// movedPiece), which are taken by their key or not at all. It returns the
// deps, nil when no block is kept (see dependsOn).
func takeDecoded(jobs []decodeJob, prev *reuse, moved map[*hclsyntax.Body]int) []byte {
	deps := dependsOn(jobs)
	if deps == nil {
		return nil
	}
	var known map[*hclsyntax.Body]blockKeyed
	if prev != nil && bytes.Equal(deps, prev.deps) {
		known = prev.keys
	}
	parallel.For(len(jobs), decodeBlocksPerWorker, func(i int) {
		j := &jobs[i]
		var kb blockKeyed
		found := false
		if body, ok := j.block.Body.(*hclsyntax.Body); ok {
			kb, found = known[body] // known may be nil: not found
		}
		if !found {
			if b, ok := j.block.Body.(*hclsyntax.Body); ok {
				if _, ok := moved[b]; ok {
					// A moved block's ranges are not where its text
					// is now: it is taken by the key it had, or not at
					// all (and the load starts over: undecodedBare).
					return
				}
			}
			kb.key, kb.keep = blockKey(deps, j)
		}
		if !kb.keep {
			return
		}
		j.key, j.keep = kb.key, true
		if t := prev.tool(kb.key); t != nil {
			j.done, j.result = true, t
		}
	})
	return deps
}

// keepDecoded records in next the tool blocks of jobs that decoded without
// a diagnostic, and the keys of every block, made with deps.
func keepDecoded(jobs []decodeJob, next *reuse, deps []byte) {
	if deps == nil {
		return
	}
	next.deps = deps
	for i := range jobs {
		j := &jobs[i]
		if body, ok := j.block.Body.(*hclsyntax.Body); ok {
			next.keys[body] = blockKeyed{key: j.key, keep: j.keep}
		}
		if t, ok := j.result.(*Tool); ok && j.keep && len(j.diags) == 0 {
			next.blocks[j.key] = t
		}
	}
}

// tool returns the tool prev (nil-safe) decoded under key.
func (r *reuse) tool(key [32]byte) *Tool {
	if r == nil {
		return nil
	}
	return r.blocks[key]
}

// DropReuse keeps a later load from taking anything from c: for a config
// whose backends were closed (one with errors).
func (c *Config) DropReuse() {
	if c != nil {
		c.reuse = nil
	}
}

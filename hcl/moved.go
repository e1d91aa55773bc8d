package hcl

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A reload after an edit that changes the length of a tool moves every
// piece of the file after it (see parseFiles): the same bytes, starting
// elsewhere. Their syntax trees and decoded tools hold the ranges of where
// they were, which call-time diagnostics point with, so a load takes them
// only as they are, to serve at once, when Options.TakeMoved says the
// caller will load again without it and serve that instead (see
// host.Reloader). Only bare pieces are taken so: their blocks are all tool
// blocks whose decoded tools are taken with them, so nothing of them is
// decoded from a range that no longer holds their text.

// textKey names a piece by its file and bytes, wherever it starts.
type textKey struct {
	name string
	sum  [32]byte
}

// movedPiece returns the bare piece prev (nil-safe) parsed from the bytes
// of key at another place; nil when next does not take moved pieces (see
// Options.TakeMoved) or there is none. Its blocks are noted in next with
// how many bytes later they start now (see Config.BlockRange), but the
// piece is not kept for the load after: that one parses it where it is.
func (r *reuse) movedPiece(key pieceKey, next *reuse) *hcl.File {
	if r == nil || next == nil || !next.takeMoved {
		return nil
	}
	was, ok := r.byText[textKey{key.name, key.sum}]
	if !ok || was == key {
		return nil
	}
	f := r.pieces[was]
	if f == nil || !next.takes(f) {
		return nil
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok || len(body.Attributes) > 0 || len(body.Blocks) == 0 {
		return nil
	}
	for _, b := range body.Blocks {
		if !isBare(b.Body) {
			return nil
		}
	}
	next.mu.Lock()
	defer next.mu.Unlock()
	if next.moved == nil {
		next.moved = map[*hclsyntax.Body]int{}
	}
	for _, b := range body.Blocks {
		next.moved[b.Body] = key.start - was.start
	}
	return f
}

// noteMovedTools records the names of the tools of moved pieces.
func (cfg *Config) noteMovedTools(jobs []decodeJob) {
	if len(cfg.moved) == 0 {
		return
	}
	cfg.movedTools = map[string]bool{}
	for i := range jobs {
		b, ok := jobs[i].block.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		if _, moved := cfg.moved[b]; !moved {
			continue
		}
		if t, ok := jobs[i].result.(*Tool); ok {
			cfg.movedTools[t.Name] = true
		}
	}
}

// Moved reports whether the tool name (any tool, for "") was taken from
// the load before from a piece an edit moved (see Options.TakeMoved): its
// source ranges are those of where it was.
func (cfg *Config) Moved(name string) bool {
	if cfg == nil || len(cfg.movedTools) == 0 {
		return false
	}
	return name == "" || cfg.movedTools[name]
}

// BlockRange returns the range of a top-level block of cfg's files in
// their bytes: its own range, or for a block of a moved piece (see
// Options.TakeMoved), that range where the piece's bytes are now.
func (cfg *Config) BlockRange(b *hclsyntax.Block) hcl.Range {
	rng := b.Range()
	if cfg == nil {
		return rng
	}
	if d, ok := cfg.moved[b.Body]; ok {
		rng.Start.Byte += d
		rng.End.Byte += d
	}
	return rng
}

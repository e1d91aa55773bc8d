package hcl

import (
	"bytes"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// After a load, the syntax trees of the tool blocks it decoded and keeps
// for the next load (see reuse) are dropped: a piece of a file (or a small
// file parsed whole) whose top-level blocks are all such tool blocks is
// kept as a bare piece, whose blocks have their type, labels and ranges
// and an empty body that keeps only its ranges. That is all the config in
// service needs of them: the ranges and the file's bytes for diagnostics
// and their "in tool ..." context, the text between the ranges for the
// next load's reuse and for Apply's comparison of blocks. The expressions
// a tool evaluates at each call (a template's text, an http URL or body, a
// result mapping, confirm) are held by the decoded tool, not by the file,
// and stay. For 10,000 generated tools the live heap after a load falls
// from 97 to 38 MB (BENCHMARKS.md, "10,000 tools in less memory").
//
// A later load takes a bare piece only for blocks whose decoded tool it
// takes too: when one of them must be decoded again (a server or source
// block changed), the load starts over and parses every bare piece again
// (see Load).

// dropTrees replaces, in cfg.Files and in what cfg keeps for the next load,
// each piece whose blocks are all tool blocks kept decoded (see
// keepDecoded) with a bare piece.
func (cfg *Config) dropTrees(jobs []decodeJob) {
	if cfg.reuse == nil || len(cfg.reuse.blocks) == 0 {
		return
	}
	kept := make(map[*hclsyntax.Body]bool, len(cfg.reuse.blocks))
	for i := range jobs {
		j := &jobs[i]
		if _, ok := j.result.(*Tool); ok && j.keep && len(j.diags) == 0 {
			if b, ok := j.block.Body.(*hclsyntax.Body); ok {
				kept[b] = true
			}
		}
	}
	// bare maps the body of each piece made bare to its bare piece.
	bare := map[*hclsyntax.Body]*hcl.File{}
	for key, f := range cfg.reuse.pieces {
		body, ok := f.Body.(*hclsyntax.Body)
		if !ok || len(body.Attributes) > 0 || len(body.Blocks) == 0 || isBare(body.Blocks[0].Body) {
			continue
		}
		all := true
		for _, b := range body.Blocks {
			if !kept[b.Body] {
				all = false
				break
			}
		}
		if all {
			bf := bareFile(body)
			cfg.reuse.pieces[key] = bf
			bare[body] = bf
			// The blocks' keys go with their bare bodies, which the next
			// load finds, and no longer hold the syntax trees.
			for i, b := range bf.Body.(*hclsyntax.Body).Blocks {
				old := body.Blocks[i].Body
				if k, ok := cfg.reuse.keys[old]; ok {
					cfg.reuse.keys[b.Body] = k
					delete(cfg.reuse.keys, old)
				}
			}
		}
	}
	if len(bare) == 0 {
		return
	}
	for name, f := range cfg.Files {
		if nav, ok := f.Nav.(pieceNav); ok {
			pieces := make([]*hcl.File, len(nav))
			changed := false
			for i, p := range nav {
				pieces[i] = p
				if bf, ok := bare[p.Body.(*hclsyntax.Body)]; ok {
					pieces[i], changed = bf, true
				}
			}
			if !changed {
				continue
			}
			if joined, ok := joinPieces(f.Bytes, pieces, make([]bool, len(pieces))); ok {
				cfg.Files[name] = joined
			}
			continue
		}
		if body, ok := f.Body.(*hclsyntax.Body); ok {
			if bf, ok := bare[body]; ok {
				cfg.Files[name] = &hcl.File{Body: bf.Body, Bytes: f.Bytes, Nav: bf.Nav}
			}
		}
	}
}

// bareFile returns a piece whose blocks are those of body, bare (see
// bareBlock).
func bareFile(body *hclsyntax.Body) *hcl.File {
	blocks := make(hclsyntax.Blocks, len(body.Blocks))
	for i, b := range body.Blocks {
		blocks[i] = bareBlock(b)
	}
	nb := &hclsyntax.Body{Blocks: blocks, SrcRange: body.SrcRange, EndRange: body.EndRange}
	return &hcl.File{Body: nb, Nav: topNav{nb}}
}

// bareBlock returns b with an empty body: its type, labels and ranges, and
// its body's ranges. Its body has neither attributes nor blocks (nil, as
// no body the parser gives without a diagnostic has them: see isBare).
func bareBlock(b *hclsyntax.Block) *hclsyntax.Block {
	return &hclsyntax.Block{
		Type:            b.Type,
		Labels:          b.Labels,
		Body:            &hclsyntax.Body{SrcRange: b.Body.SrcRange, EndRange: b.Body.EndRange},
		TypeRange:       b.TypeRange,
		LabelRanges:     b.LabelRanges,
		OpenBraceRange:  b.OpenBraceRange,
		CloseBraceRange: b.CloseBraceRange,
	}
}

// isBare reports whether a block's body is bare (see bareBlock): nil
// attributes and blocks. The parser leaves such a body only after a syntax
// error, in a piece that is then parsed again whole; taking one for bare
// would cost a load that starts over, never a wrong result.
func isBare(body hcl.Body) bool {
	b, ok := body.(*hclsyntax.Body)
	return ok && b.Attributes == nil && b.Blocks == nil
}

// undecodedBare reports whether a block of jobs that was neither taken
// decoded from the load before nor decoded early has a bare body: the load
// must start over and parse the bare pieces again.
func undecodedBare(jobs []decodeJob, early *earlyDecoder) bool {
	early.mu.Lock()
	defer early.mu.Unlock()
	for i := range jobs {
		if jobs[i].done || !isBare(jobs[i].block.Body) {
			continue
		}
		if _, ok := early.jobs[jobs[i].block.Body.(*hclsyntax.Body)]; !ok {
			return true
		}
	}
	return false
}

// topNav gives the diagnostic writer the "in tool ..." context of a bare
// piece, as HCL's own navigation does for a parsed file: the header of
// the top-level block that holds the offset.
type topNav struct{ root *hclsyntax.Body }

// ContextString implements the interface hcl's diagnostic writer looks for.
func (n topNav) ContextString(offset int) string {
	b := n.block(offset)
	if b == nil {
		return ""
	}
	var buf bytes.Buffer
	buf.WriteString(b.Type)
	for _, l := range b.Labels {
		fmt.Fprintf(&buf, " %q", l)
	}
	return buf.String()
}

// ContextDefRange is the definition range of the block that holds offset.
func (n topNav) ContextDefRange(offset int) hcl.Range {
	if b := n.block(offset); b != nil {
		return b.DefRange()
	}
	return hcl.Range{}
}

// block returns the top-level block that holds offset, or nil.
func (n topNav) block(offset int) *hclsyntax.Block {
	for _, b := range n.root.Blocks {
		if b.Range().ContainsOffset(offset) {
			return b
		}
	}
	return nil
}

// takes reports whether a load that records in r (nil-safe) may take the
// piece f from the load before: any piece, but not a bare one when the
// load must parse every block (r.full).
func (r *reuse) takes(f *hcl.File) bool {
	if r == nil || !r.full {
		return true
	}
	body, ok := f.Body.(*hclsyntax.Body)
	return !ok || len(body.Blocks) == 0 || !isBare(body.Blocks[0].Body)
}

package host

import (
	"bytes"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	thcl "github.com/toolhost/toolhost/hcl"
)

// configFiles returns the parsed files of cfg, which may be nil.
func configFiles(cfg *thcl.Config) map[string]*hcl.File {
	if cfg == nil {
		return nil
	}
	return cfg.Files
}

// blockDefs maps each top-level block of cfg, by kind and name ("tool",
// "greet"), to what fixes how it behaves beyond what clients see: its source
// text and the directory its relative paths resolve against. (The values
// env() reads come from the environment of this process, the same for
// every load, and content files are read at call time, so neither can
// change a block whose source stayed the same.) Apply compares them to tell
// apart the definitions a reload changed behind an unchanged declaration.
func blockDefs(cfg *thcl.Config) map[blockKey]blockDef {
	if cfg == nil {
		return map[blockKey]blockDef{}
	}
	n := 0
	for _, f := range cfg.Files {
		if body, ok := f.Body.(*hclsyntax.Body); ok {
			n += len(body.Blocks)
		}
	}
	defs := make(map[blockKey]blockDef, n)
	for name, f := range cfg.Files {
		body, ok := f.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		dir := filepath.Dir(name)
		for _, b := range body.Blocks {
			rng := cfg.BlockRange(b)
			if rng.Start.Byte < 0 || rng.End.Byte > len(f.Bytes) || rng.Start.Byte > rng.End.Byte {
				continue
			}
			key := blockKey{kind: b.Type}
			if len(b.Labels) > 0 {
				key.name = b.Labels[0]
			}
			defs[key] = blockDef{dir: dir, src: f.Bytes[rng.Start.Byte:rng.End.Byte]}
		}
	}
	return defs
}

type blockKey struct{ kind, name string }

type blockDef struct {
	dir string
	src []byte
}

// blockChanges tells which blocks a reload redefined: those whose source
// changed in more than comments and layout, or whose directory changed.
type blockChanges struct {
	old, new map[blockKey]blockDef
	// before and after, when set, are the registries old and new are
	// built from, at the first look that needs them (see changesBetween).
	before, after *Registry
	// lexBudget is how many more bytes of changed source may be lexed to
	// tell a comment or layout edit from a real one: beyond it (a config
	// of a thousand blocks reformatted, say) a changed source counts as a
	// redefinition, which is only logged, rather than slow the reload.
	lexBudget int
}

// maxLexedPerReload is the lexBudget of a reload: a few milliseconds of
// lexing (HCL's lexer's speed is in BENCHMARKS.md, "Large configs").
const maxLexedPerReload = 64 << 10

func newBlockChanges(old, new map[blockKey]blockDef) *blockChanges {
	return &blockChanges{old: old, new: new, lexBudget: maxLexedPerReload}
}

// redefined reports whether the block key is in both the old and the new
// config with a different definition: another directory, or a source that
// differs in more than comments and line breaks.
func (c *blockChanges) redefined(key blockKey) bool {
	if c == nil {
		return false
	}
	x, ok1 := c.def(false, key)
	y, ok2 := c.def(true, key)
	if !ok1 || !ok2 {
		return false
	}
	if x.dir != y.dir {
		return true
	}
	if bytes.Equal(x.src, y.src) {
		return false
	}
	if c.lexBudget -= len(x.src) + len(y.src); c.lexBudget < 0 {
		return true
	}
	return !sameTokens(x.src, y.src)
}

// sameTokens reports whether two sources of a block are the same tokens
// but for comments, line breaks and spacing, which change nothing a
// block does (both come from configs that parsed, so a line break cannot
// have ended an expression in one and not in the other).
func sameTokens(a, b []byte) bool {
	ta, da := hclsyntax.LexConfig(a, "", hcl.InitialPos)
	tb, db := hclsyntax.LexConfig(b, "", hcl.InitialPos)
	if da.HasErrors() || db.HasErrors() {
		return false
	}
	skip := func(t hclsyntax.TokenType) bool {
		return t == hclsyntax.TokenComment || t == hclsyntax.TokenNewline
	}
	i, j := 0, 0
	for {
		for i < len(ta) && skip(ta[i].Type) {
			i++
		}
		for j < len(tb) && skip(tb[j].Type) {
			j++
		}
		if i == len(ta) || j == len(tb) {
			return i == len(ta) && j == len(tb)
		}
		if ta[i].Type != tb[j].Type || !bytes.Equal(ta[i].Bytes, tb[j].Bytes) {
			return false
		}
		i++
		j++
	}
}

package host

import (
	"path/filepath"
	"sync"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	thcl "github.com/toolhost/toolhost/hcl"
)

// changesBetween is newBlockChanges for the registries old and reg of an
// Apply. It maps their blocks (blockDefs) only at the first look at a
// block other than the server block, and each registry keeps its map for
// the next Apply: a reload of one changed tool among thousands, whose
// declaration changed or that was taken over unchanged, looks at no block
// and maps none.
func changesBetween(old, reg *Registry) *blockChanges {
	return &blockChanges{before: old, after: reg, lexBudget: maxLexedPerReload}
}

// def returns the definition of the block key in the new config (after)
// or the old one.
func (c *blockChanges) def(after bool, key blockKey) (blockDef, bool) {
	m, reg := c.old, c.before
	if after {
		m, reg = c.new, c.after
	}
	if m == nil && reg != nil {
		if key.kind == "server" {
			return serverDef(reg.Config)
		}
		m = reg.blockDefs()
		if after {
			c.new = m
		} else {
			c.old = m
		}
	}
	d, ok := m[key]
	return d, ok
}

// serverDef is blockDefs(cfg)'s entry for the server block, found without
// mapping the other blocks.
func serverDef(cfg *thcl.Config) (def blockDef, found bool) {
	if cfg == nil {
		return def, false
	}
	for name, f := range cfg.Files {
		body, ok := f.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		for _, b := range body.Blocks {
			rng := b.Range()
			if b.Type != "server" || len(b.Labels) > 0 || rng.Start.Byte < 0 || rng.End.Byte > len(f.Bytes) || rng.Start.Byte > rng.End.Byte {
				continue
			}
			def, found = blockDef{dir: filepath.Dir(name), src: f.Bytes[rng.Start.Byte:rng.End.Byte]}, true
		}
	}
	return def, found
}

// defsOnce holds a registry's blockDefs, made at the first need.
type defsOnce struct {
	once sync.Once
	defs map[blockKey]blockDef
}

// blockDefs returns blockDefs(r.Config), mapped once for r.
func (r *Registry) blockDefs() map[blockKey]blockDef {
	r.defs.once.Do(func() { r.defs.defs = blockDefs(r.Config) })
	return r.defs.defs
}

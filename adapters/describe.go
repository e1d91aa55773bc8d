package adapters

import (
	"fmt"
	"io/fs"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolhost/toolhost/internal/langdoc"
)

// Describer is what a backend kind says of its block for the language
// reference: the block's schema (the very value its Compile decodes
// with), its nested blocks and their text. A backend registers one with
// RegisterDescriber, in a file of its own beside its Compile; hcl finds it
// by the kind's name, and the reference then documents the block.
type Describer interface {
	// Describe returns the block's description. Its Type is the kind's
	// name; its ID is unique in the reference (the kind's name serves).
	Describe() *langdoc.Block
}

var (
	describersMu sync.RWMutex
	describers   = map[string]Describer{}
)

// RegisterDescriber adds the Describer of the backend kind named name. It
// panics when one is registered twice, a programming error found at init.
func RegisterDescriber(name string, d Describer) {
	describersMu.Lock()
	defer describersMu.Unlock()
	if _, dup := describers[name]; dup {
		panic(fmt.Sprintf("adapters: describer of %q registered twice", name))
	}
	describers[name] = d
}

// DescriberOf returns the Describer of the backend kind named name.
func DescriberOf(name string) (Describer, bool) {
	describersMu.RLock()
	defer describersMu.RUnlock()
	d, ok := describers[name]
	return d, ok
}

// DescriberFunc is a function that is a Describer.
type DescriberFunc func() *langdoc.Block

// Describe calls f.
func (f DescriberFunc) Describe() *langdoc.Block { return f() }

// BlockDescriber is the Describer of a backend kind whose block has no
// nested blocks: the kind named name, whose Compile decodes its block
// with schema, documented by the text refdoc/NAME.md of texts, which is
// the backend's directory (adapters/NAME).
func BlockDescriber(texts fs.FS, name string, schema *hcl.BodySchema) Describer {
	return DescriberFunc(func() *langdoc.Block {
		return langdoc.Texts{FS: texts, Dir: "adapters/" + name}.Block("refdoc/"+name+".md", name, schema)
	})
}

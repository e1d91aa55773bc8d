package exec

import (
	"embed"

	"github.com/toolhost/toolhost/adapters"
)

// refdocs is the text of the exec block in the language reference (see
// langdoc.Parse).
//
//go:embed refdoc/*.md
var refdocs embed.FS

func init() {
	adapters.RegisterDescriber("exec", adapters.BlockDescriber(refdocs, "exec", blockSchema))
}

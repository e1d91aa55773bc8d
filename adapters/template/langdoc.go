package template

import (
	"embed"

	"github.com/toolhost/toolhost/adapters"
)

// refdocs is the text of the template block in the language reference (see
// langdoc.Parse).
//
//go:embed refdoc/*.md
var refdocs embed.FS

func init() {
	adapters.RegisterDescriber("template", adapters.BlockDescriber(refdocs, "template", templateBlockSchema))
}

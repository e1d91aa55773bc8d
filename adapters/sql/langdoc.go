package sql

import (
	"embed"

	"github.com/toolhost/toolhost/adapters"
)

// refdocs is the text of the sql block in the language reference (see
// langdoc.Parse).
//
//go:embed refdoc/*.md
var refdocs embed.FS

func init() {
	adapters.RegisterDescriber("sql", adapters.BlockDescriber(refdocs, "sql", sqlBlockSchema))
}

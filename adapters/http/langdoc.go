package http

import (
	"embed"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/langdoc"
)

// refdocs are the texts of the http block and its nested blocks in the
// language reference (see langdoc.Parse).
//
//go:embed refdoc/*.md
var refdocs embed.FS

func init() { adapters.RegisterDescriber("http", adapters.DescriberFunc(describe)) }

// describe returns the http block and its nested blocks, with the schemas
// compile decodes them with.
func describe() *langdoc.Block {
	t := langdoc.Texts{FS: refdocs, Dir: "adapters/http"}
	return t.Block("refdoc/http.md", "http", blockSchema,
		t.Block("refdoc/retry.md", "http.retry", retrySchema),
		t.Block("refdoc/breaker.md", "http.breaker", breakerSchema),
		t.Block("refdoc/limit.md", "http.limit", limitSchema),
		t.Block("refdoc/cache.md", "http.cache", cacheSchema),
		t.Block("refdoc/select.md", "http.select", selectSchema),
		t.Block("refdoc/token_exchange.md", "http.token_exchange", tokenExchangeSchema),
	)
}

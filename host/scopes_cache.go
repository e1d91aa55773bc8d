package host

import "github.com/modelcontextprotocol/go-sdk/mcp"

// privateCache returns res with cacheScope "private" when it answers a
// request whose answer depends on who asks: one that came with a verified
// token, or that scopes or a group filter. The SDK says "public", which
// lets shared intermediaries keep one caller's list or resource and serve
// it to others. Results are copied, not changed: the SDK or a cache may
// hold the ones it made.
func (v view) privateCache(reg *Registry, res mcp.Result) mcp.Result {
	if !v.remote || (v.caller == nil && !v.filtered(reg)) {
		return res
	}
	switch r := res.(type) {
	case *mcp.ListToolsResult:
		if r != nil {
			c := *r
			c.CacheScope = "private"
			return &c
		}
	case *mcp.ListResourcesResult:
		if r != nil {
			c := *r
			c.CacheScope = "private"
			return &c
		}
	case *mcp.ListResourceTemplatesResult:
		if r != nil {
			c := *r
			c.CacheScope = "private"
			return &c
		}
	case *mcp.ListPromptsResult:
		if r != nil {
			c := *r
			c.CacheScope = "private"
			return &c
		}
	case *mcp.ReadResourceResult:
		if r != nil {
			c := *r
			c.CacheScope = "private"
			return &c
		}
	}
	return res
}

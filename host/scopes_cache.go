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
		return privateCopy(r, func(c *mcp.ListToolsResult) *mcp.Cacheable { return &c.Cacheable })
	case *mcp.ListResourcesResult:
		return privateCopy(r, func(c *mcp.ListResourcesResult) *mcp.Cacheable { return &c.Cacheable })
	case *mcp.ListResourceTemplatesResult:
		return privateCopy(r, func(c *mcp.ListResourceTemplatesResult) *mcp.Cacheable { return &c.Cacheable })
	case *mcp.ListPromptsResult:
		return privateCopy(r, func(c *mcp.ListPromptsResult) *mcp.Cacheable { return &c.Cacheable })
	case *mcp.ReadResourceResult:
		return privateCopy(r, func(c *mcp.ReadResourceResult) *mcp.Cacheable { return &c.Cacheable })
	}
	return res
}

// privateCopy returns a copy of r whose cacheScope (the field cache
// returns) is "private"; r itself when nil.
func privateCopy[T any, P interface {
	*T
	mcp.Result
}](r P, cache func(P) *mcp.Cacheable) mcp.Result {
	if r == nil {
		return r
	}
	c := P(new(T))
	*c = *r
	cache(c).CacheScope = "private"
	return c
}

package host

import (
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolhost/toolhost/adapters"
)

// Wants implements adapters.LevelReporter: whether a line at level may
// reach the client (see sessionPeer.wants); true for a peer that cannot
// tell.
func (c *callReporter) Wants(level string) bool {
	if c == nil {
		return false
	}
	if p, ok := c.peer.(interface{ wants(mcp.LoggingLevel) bool }); ok {
		return p.wants(mcp.LoggingLevel(level))
	}
	return true
}

var _ adapters.LevelReporter = (*callReporter)(nil)

// wants reports whether a line at level may reach the session's client.
// It is false only when the server noted the session's level (see
// Server.noteLevel), that level is above level, and the request carries
// no level of its own (a 2026-07-28 request's _meta may): the SDK then
// drops the line. Anything it cannot be sure of is true.
func (p *sessionPeer) wants(level mcp.LoggingLevel) bool {
	if p.noted == nil || p.ownLevel {
		return true
	}
	noted, ok := p.noted(p.ss)
	if !ok || levelRank(level) < 0 || levelRank(noted) < 0 {
		return true
	}
	return levelRank(level) >= levelRank(noted)
}

// notedLevel is the logging level noted for ss (see levels).
func (s *Server) notedLevel(ss *mcp.ServerSession) (mcp.LoggingLevel, bool) {
	v, ok := s.levels.Load(weak.Make(ss))
	if !ok {
		return "", false
	}
	l, ok := v.(mcp.LoggingLevel)
	return l, ok
}

// hasOwnLevel reports whether a request's _meta sets its own logging
// level (2026-07-28), which the SDK applies instead of the session's.
func hasOwnLevel(meta mcp.Meta) bool {
	_, ok := meta[mcp.MetaKeyLogLevel]
	return ok
}

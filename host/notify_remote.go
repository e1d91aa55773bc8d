package host

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// clientText is what a logging notification of the config's state (a
// reload's diagnostics, the notice of a broken config) tells a client: all
// of msg, unless the server serves HTTP and the config in service, or the
// broken config not yet loaded, has an auth block. Diagnostics quote the config's lines
// and name its tools, which callers that are not the config's author, or
// may not see every tool, must not read: they get msg's first line and
// where the rest is.
func (s *Server) clientText(msg string) string {
	if !s.remote.Load() {
		return msg
	}
	reg := s.current.Load()
	switch {
	case reg == nil:
		return msg
	case reg.Placeholder():
		if !reg.placeholder.auth {
			return msg
		}
	case reg.Config == nil || reg.Config.Server == nil || reg.Config.Server.Auth == nil:
		return msg
	}
	first, rest, _ := strings.Cut(msg, "\n")
	if strings.TrimSpace(rest) == "" {
		return msg
	}
	return first + " (the details are in the server's log)"
}

// hasAuthBlock reports whether the parsed files of a config declare an
// auth block in a server block, whatever their errors.
func hasAuthBlock(files map[string]*hcl.File) bool {
	for _, f := range files {
		body, ok := f.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		for _, b := range body.Blocks {
			if b.Type != "server" || b.Body == nil {
				continue
			}
			for _, inner := range b.Body.Blocks {
				if inner.Type == "auth" {
					return true
				}
			}
		}
	}
	return false
}

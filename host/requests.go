package host

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
)

// logLevels are the levels of logging/setLevel, lowest first (RFC 5424's
// severities, as the spec names them).
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// maxNamesListed is how many declared names an unknown-name error lists.
const maxNamesListed = 20

// checkRequest refuses the requests whose mistakes the SDK would answer
// without saying how to fix them: a log level that is none of the spec's
// (the SDK takes any string, and the client then gets no logs at all), and
// a tool or prompt that is not declared (the error names the close one and
// those that are). It returns nil for the others.
func (s *Server) checkRequest(method string, req mcp.Request) error {
	switch method {
	case "logging/setLevel":
		if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && p != nil && !slices.Contains(logLevels, p.Level) {
			levels := make([]string, len(logLevels))
			for i, l := range logLevels {
				levels[i] = string(l)
			}
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("invalid log level %q: use one of %s", p.Level, strings.Join(levels, ", "))}
		}
	case "prompts/get":
		if p, ok := req.GetParams().(*mcp.GetPromptParams); ok && p != nil {
			if reg := s.Registry(); reg != nil && reg.prompts[p.Name] == nil {
				return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: unknownName("prompt", p.Name, slices.Sorted(maps.Keys(reg.prompts)))}
			}
		}
	case "tools/call":
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
			if reg := s.Registry(); reg != nil && reg.tools[p.Name] == nil {
				return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: unknownName("tool", p.Name, slices.Sorted(maps.Keys(reg.tools)))}
			}
		}
	}
	return nil
}

// unknownName is the message of a request for a kind (tool, prompt) of
// name that is not declared: the closest declared name, if one is close,
// and the declared ones (at most maxNamesListed of them).
func unknownName(kind, name string, declared []string) string {
	msg := fmt.Sprintf("unknown %s %q", kind, name)
	if s := thcl.Suggest(name, declared); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	switch {
	case len(declared) == 0:
		return msg + fmt.Sprintf("; this server declares no %ss", kind)
	case len(declared) > maxNamesListed:
		return msg + fmt.Sprintf("; the %ss include %s and %d more (%ss/list has them all)", kind, strings.Join(declared[:maxNamesListed], ", "), len(declared)-maxNamesListed, kind)
	}
	return msg + fmt.Sprintf("; the %ss are: %s", kind, strings.Join(declared, ", "))
}

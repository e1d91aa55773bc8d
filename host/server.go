package host

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	thcl "github.com/toolhost/toolhost/hcl"
)

// Server serves a Registry to MCP clients through the official Go SDK. The
// registry in service can be replaced with Apply while clients are
// connected.
type Server struct {
	mcp    *mcp.Server
	logger *slog.Logger

	current atomic.Pointer[Registry]
	applyMu sync.Mutex
}

// NewServer makes a server for reg. The server's name, version and
// instructions come from the config's server block.
func NewServer(reg *Registry, logger *slog.Logger) *Server {
	if logger == nil {
		logger = slog.Default()
	}
	info := reg.Config.Server
	s := &Server{logger: logger}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: info.Name, Title: info.Title, Version: info.Version}, &mcp.ServerOptions{
		Instructions: info.Instructions,
		Logger:       logger,
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
			Logging:   &mcp.LoggingCapabilities{},
		},
	})
	s.Apply(reg)
	return s
}

// MCP returns the SDK server, for transports.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Registry returns the registry in service.
func (s *Server) Registry() *Registry { return s.current.Load() }

// Changes says what an Apply changed, by name.
type Changes struct {
	ToolsAdded, ToolsRemoved, ToolsChanged []string
	ResourcesChanged, PromptsChanged       bool
}

// Apply puts reg in service. Definitions that are new or changed are
// (re)registered and removed ones unregistered, so that connected clients get
// one list_changed notification per kind that changed. Calls already running
// finish on the registry they started with; the old registry is returned for
// the caller to retire once they are done.
func (s *Server) Apply(reg *Registry) (old *Registry, ch Changes) {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	old = s.current.Swap(reg)

	oldTools := map[string]*mcp.Tool{}
	if old != nil {
		for _, t := range old.Tools {
			oldTools[t.Name] = t
		}
	}
	newNames := map[string]bool{}
	for _, t := range reg.Tools {
		newNames[t.Name] = true
		prev, existed := oldTools[t.Name]
		switch {
		case !existed:
			ch.ToolsAdded = append(ch.ToolsAdded, t.Name)
		case !sameJSON(prev, t):
			ch.ToolsChanged = append(ch.ToolsChanged, t.Name)
		default:
			continue
		}
		s.mcp.AddTool(t, s.toolHandler)
	}
	for name := range oldTools {
		if !newNames[name] {
			ch.ToolsRemoved = append(ch.ToolsRemoved, name)
		}
	}
	if len(ch.ToolsRemoved) > 0 {
		s.mcp.RemoveTools(ch.ToolsRemoved...)
	}

	var oldRes []*mcp.Resource
	var oldTmpl []*mcp.ResourceTemplate
	var oldPrompts []*mcp.Prompt
	if old != nil {
		oldRes, oldTmpl, oldPrompts = old.Resources, old.Templates, old.Prompts
	}
	if !sameJSON(oldRes, reg.Resources) || !sameJSON(oldTmpl, reg.Templates) {
		ch.ResourcesChanged = true
		var uris, tmpls []string
		for _, r := range oldRes {
			uris = append(uris, r.URI)
		}
		for _, t := range oldTmpl {
			tmpls = append(tmpls, t.URITemplate)
		}
		if len(uris) > 0 {
			s.mcp.RemoveResources(uris...)
		}
		if len(tmpls) > 0 {
			s.mcp.RemoveResourceTemplates(tmpls...)
		}
		for _, r := range reg.Resources {
			s.mcp.AddResource(r, s.resourceHandler)
		}
		for _, t := range reg.Templates {
			s.mcp.AddResourceTemplate(t, s.resourceHandler)
		}
	}
	if !sameJSON(oldPrompts, reg.Prompts) {
		ch.PromptsChanged = true
		var names []string
		for _, p := range oldPrompts {
			names = append(names, p.Name)
		}
		if len(names) > 0 {
			s.mcp.RemovePrompts(names...)
		}
		for _, p := range reg.Prompts {
			s.mcp.AddPrompt(p, s.promptHandler)
		}
	}
	return old, ch
}

func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && reflect.DeepEqual(ja, jb)
}

func (s *Server) toolHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	reg := s.current.Load()
	res, err := reg.CallTool(ctx, req.Params.Name, req.Params.Arguments)
	if errors.Is(err, ErrUnknownTool) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	return res, err
}

func (s *Server) resourceHandler(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return s.current.Load().ReadResource(ctx, req.Params.URI)
}

func (s *Server) promptHandler(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	res, err := s.current.Load().GetPrompt(ctx, req.Params.Name, req.Params.Arguments)
	var pe *PromptError
	if errors.As(err, &pe) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: pe.Msg}
	}
	return res, err
}

// Run serves one client over t until the client goes away or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, t)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// ServerInfo returns the server block in service, for inspect.
func (s *Server) ServerInfo() *thcl.Server { return s.current.Load().Config.Server }

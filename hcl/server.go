package hcl

import (
	"fmt"
	"math/big"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/netpolicy"
)

// SourceVersion is the version in the source: Version's when no -X flag
// stamps one at build time.
const SourceVersion = "0.1.0"

// Version is toolhost's version, reported as the default server version.
// Release builds stamp it (-X github.com/toolhost/toolhost/hcl.Version=...);
// the command line takes the module's version when go install built it
// from a release tag.
var Version = SourceVersion

// Server is the server block: how the server introduces itself to clients.
type Server struct {
	Name         string
	Title        string
	Version      string
	Instructions string
	// Network is the default network policy of the http tools.
	Network netpolicy.Policy
	// ProgressHeartbeat is how often a call that reports no progress sends
	// an elapsed-time progress notification (when the client asked for
	// progress); 0 means the default, one second.
	ProgressHeartbeat time.Duration
	// MaxConcurrentCalls caps the tool calls whose backends run at once;
	// more wait for a slot (or for their cancellation).
	MaxConcurrentCalls int
	// Auth is the auth block: bearer tokens over HTTP; nil when absent.
	Auth      *Auth
	DeclRange hcl.Range
}

// DefaultMaxConcurrentCalls is max_concurrent_calls when the server block
// does not set it, and MaxMaxConcurrentCalls its largest value.
const (
	DefaultMaxConcurrentCalls = 128
	MaxMaxConcurrentCalls     = 10000
)

// serverBlockSchema is the schema of the server block.
var serverBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "name"},
		{Name: "title"},
		{Name: "version"},
		{Name: "instructions"},
		{Name: "allow_hosts"},
		{Name: "deny_private"},
		{Name: "progress_heartbeat"},
		{Name: "max_concurrent_calls"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "auth"}},
}

// defaultServer is the server of a config without a server block.
func defaultServer() *Server {
	return &Server{Name: "toolhost", Version: Version, MaxConcurrentCalls: DefaultMaxConcurrentCalls}
}

// decodeServer decodes the server block; ctx evaluates its attributes,
// which are all constant.
func decodeServer(block *hcl.Block, ctx *hcl.EvalContext) (*Server, hcl.Diagnostics) {
	content, diags := block.Body.Content(serverBlockSchema)
	s := defaultServer()
	s.DeclRange = block.DefRange
	diags = append(diags, stringAttr(content.Attributes, "name", ctx, &s.Name)...)
	diags = append(diags, stringAttr(content.Attributes, "title", ctx, &s.Title)...)
	diags = append(diags, stringAttr(content.Attributes, "version", ctx, &s.Version)...)
	diags = append(diags, stringAttr(content.Attributes, "instructions", ctx, &s.Instructions)...)
	diags = append(diags, boolAttr(content.Attributes, "deny_private", ctx, &s.Network.DenyPrivate)...)
	diags = append(diags, durationAttr(content.Attributes, "progress_heartbeat", ctx, attr.DurationRange{
		Min: 50 * time.Millisecond, Max: time.Minute, Example: `"1s"`, Examples: `"1s", "500ms" or "10s"`,
	}, &s.ProgressHeartbeat)...)
	if a, ok := content.Attributes["max_concurrent_calls"]; ok {
		v, d := attr.Constant(a, ctx, cty.Number)
		diags = append(diags, d...)
		if !d.HasErrors() {
			n, acc := v.AsBigFloat().Int64()
			if !v.AsBigFloat().IsInt() || acc != big.Exact || n < 1 || n > MaxMaxConcurrentCalls {
				diags = append(diags, rangeDiag(a, "Invalid max_concurrent_calls", fmt.Sprintf("max_concurrent_calls is a whole number from 1 to %d; %s is not. The default is %d.", MaxMaxConcurrentCalls, v.AsBigFloat().Text('g', 10), DefaultMaxConcurrentCalls)))
			} else {
				s.MaxConcurrentCalls = int(n)
			}
		}
	}
	if a, ok := content.Attributes["allow_hosts"]; ok {
		v, d := attr.Constant(a, ctx, cty.List(cty.String))
		diags = append(diags, d...)
		if !d.HasErrors() {
			hosts, hd := netpolicy.AllowHosts(a, v)
			diags = append(diags, hd...)
			s.Network.AllowHosts = append(s.Network.AllowHosts, hosts...)
		}
	}
	for _, b := range content.Blocks {
		if s.Auth != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Duplicate auth block",
				Detail:   fmt.Sprintf("The server block has one auth block; another is at %s. Merge them into one.", s.Auth.DeclRange),
				Subject:  b.DefRange.Ptr(),
			})
			continue
		}
		a, d := decodeAuth(b, ctx)
		diags = append(diags, d...)
		s.Auth = a
	}
	return s, diags
}

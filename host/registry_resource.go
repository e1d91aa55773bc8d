package host

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/adapters"
	"github.com/toolhost/toolhost/internal/files"
)

// ReadResource reads a declared resource, or a file of a resource template's
// directory. Anything not found or refused is mcp.ResourceNotFoundError.
func (r *Registry) ReadResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	if res, ok := r.resources[uri]; ok {
		if res.Backend != nil {
			return r.readFromBackend(ctx, uri, res.MIMEType, res.Backend, cty.EmptyObjectVal)
		}
		fc, err := files.Read(res.File, files.DefaultMaxSize)
		if err != nil {
			if errors.Is(err, files.ErrNotFound) {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, fmt.Errorf("reading %s: %w", uri, err)
		}
		return contents(uri, res.MIMEType, fc), nil
	}
	for _, t := range r.templates {
		d := t.decl
		if !t.matches(uri) {
			continue
		}
		name, ok := t.name(uri)
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		if d.Backend != nil {
			return r.readFromBackend(ctx, uri, d.MIMEType, d.Backend, cty.ObjectVal(map[string]cty.Value{d.Variable: cty.StringVal(name)}))
		}
		fc, err := t.dir.Read(name, files.DefaultMaxSize)
		if err != nil {
			if errors.Is(err, files.ErrNotFound) {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, fmt.Errorf("reading %s: %w", uri, err)
		}
		return contents(uri, d.MIMEType, fc), nil
	}
	return nil, mcp.ResourceNotFoundError(uri)
}

// readFromBackend reads a resource served by a backend: its output is the
// content, text or (for binary output) a blob. A backend's failure is a
// JSON-RPC error whose message says what failed, as for tools.
func (r *Registry) readFromBackend(ctx context.Context, uri, declared string, b adapters.Backend, params cty.Value) (*mcp.ReadResourceResult, error) {
	if err := r.offlineRead(uri, b); err != nil {
		return nil, err
	}
	eval := &hcl.EvalContext{Functions: r.functions.Functions, Variables: map[string]cty.Value{"param": params}}
	// A value the backend refuses by itself (an exec argument that would
	// start an option) came from the URI: the client's to correct.
	if ac, ok := b.(adapters.ArgumentChecker); ok {
		if err := ac.CheckArguments(&adapters.Input{Eval: eval}); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("reading %s: %v", uri, err)}
		}
	}
	if !r.acquireSlot(ctx, "resource read", "uri", uri) {
		return nil, fmt.Errorf("reading %s: cancelled while it waited for one of the %d calls running to finish (max_concurrent_calls in the server block)%s", uri, cap(r.slots), cancelReason(ctx))
	}
	out, err := func() (*adapters.Output, error) {
		defer r.releaseSlot(ctx)
		return b.Call(ctx, &adapters.Input{Eval: eval})
	}()
	if err != nil {
		// Stopped as the host exits: the reason, as a tool call gives it,
		// not the backend's "context canceled".
		if ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("reading %s: the read was cancelled%s", uri, cancelReason(ctx))
		}
		return nil, fmt.Errorf("reading %s: %v", uri, err)
	}
	if out.Truncated {
		return nil, fmt.Errorf("reading %s: the content was larger than the size cap and was cut at %d bytes", uri, len(out.Body))
	}
	mimeType := declared
	if mimeType == "" {
		mimeType = out.MIMEType
	}
	rc := &mcp.ResourceContents{URI: uri, MIMEType: mimeType}
	if out.Binary {
		rc.Blob = out.Body
	} else {
		rc.Text = string(out.Body)
	}
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{keepEmpty(rc)}}
	res.TTLMs = int(out.FreshFor.Milliseconds()) // the backend's cache, if any
	if out.Private {
		res.CacheScope = "private"
	}
	return res, nil
}

func contents(uri, declared string, fc *files.Content) *mcp.ReadResourceResult {
	mimeType := declared
	if mimeType == "" {
		mimeType = fc.MIMEType
	}
	rc := &mcp.ResourceContents{URI: uri, MIMEType: mimeType}
	if fc.Text {
		rc.Text = string(fc.Data)
	} else {
		rc.Blob = fc.Data
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{keepEmpty(rc)}}
}

// resourceSource says where a declared resource's content comes from, so
// that a reload that points a URI elsewhere counts as a change.
func (r *Registry) resourceSource(uri string) string {
	if res, ok := r.resources[uri]; ok {
		return res.File
	}
	return ""
}

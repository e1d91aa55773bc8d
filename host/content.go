package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/files"
	"github.com/toolhost/toolhost/internal/regular"
)

// contentError is a content item that could not be made; its message names
// the item and says what to fix.
func contentError(c *thcl.Content, format string, args ...any) error {
	// The file's base name: the client is told where in the config, not
	// where the config lives on the server.
	// An error among args formatted with %w stays in the chain.
	return fmt.Errorf("the %s item at %s:%d: "+format, append([]any{c.Kind, filepath.Base(c.DeclRange.Filename), c.DeclRange.Start.Line}, args...)...)
}

// renderContent makes one content item. out is the backend's output (nil
// in prompts).
func (r *Registry) renderContent(ctx context.Context, c *thcl.Content, eval *hcl.EvalContext, out *adapters.Output) (mcp.Content, error) {
	switch c.Kind {
	case thcl.ContentText:
		text, err := r.itemText(c, eval, out)
		if err != nil {
			return nil, err
		}
		return &mcp.TextContent{Text: text}, nil
	case thcl.ContentImage, thcl.ContentAudio:
		data, mt, err := r.itemMedia(c, eval, out)
		if err != nil {
			return nil, err
		}
		if c.Kind == thcl.ContentImage {
			return &mcp.ImageContent{Data: data, MIMEType: mt}, nil
		}
		return &mcp.AudioContent{Data: data, MIMEType: mt}, nil
	case thcl.ContentResource:
		rc, err := r.itemResource(ctx, c, eval, out)
		if err != nil {
			return nil, err
		}
		return &mcp.EmbeddedResource{Resource: rc}, nil
	case thcl.ContentResourceLink:
		return r.itemLink(c, eval)
	}
	return nil, contentError(c, "unknown content kind")
}

// evalString evaluates a string expression of a content block.
func evalString(c *thcl.Content, attr string, expr hcl.Expression, eval *hcl.EvalContext) (string, error) {
	v, diags := expr.Value(eval)
	if diags.HasErrors() {
		return "", contentError(c, "%s: %s", attr, diagSummary(diags))
	}
	v, _ = v.UnmarkDeep()
	sv, err := convert.Convert(v, cty.String)
	if err != nil || sv.IsNull() || !sv.IsKnown() {
		return "", contentError(c, "%s is null or not a string; use coalesce() to give optional values a default", attr)
	}
	return sv.AsString(), nil
}

// diagSummary is the first error of diags in a sentence.
func diagSummary(diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			if detail := adapters.EvalDetail(d); detail != "" {
				return detail
			}
			return d.Summary
		}
	}
	return diags.Error()
}

// gjsonValue reads a content item's path from the backend's JSON output.
func gjsonValue(c *thcl.Content, eval *hcl.EvalContext, out *adapters.Output) (gjson.Result, error) {
	p, err := evalString(c, "path", gjsonPathExpr{c.Path}, eval)
	if err != nil {
		return gjson.Result{}, err
	}
	var body []byte
	if out != nil {
		body = adapters.TrimBOM(out.Body)
	}
	var valid, tooDeep bool
	if out != nil && !out.Binary {
		valid, tooDeep = out.JSON()
	}
	if tooDeep {
		return gjson.Result{}, contentError(c, "%s", errTooDeep(fmt.Sprintf("path %q", p)))
	}
	if !valid {
		// JSON Lines is read with the paths for it, as result fields read
		// it (see MapOutput).
		if out == nil || out.Binary || !isJSONLines(body) {
			return gjson.Result{}, contentError(c, "path %q needs JSON output, and the output is not JSON", p)
		}
		if !strings.HasPrefix(p, "..") {
			return gjson.Result{}, contentError(c, "%s", notJSONLinesPath(p))
		}
	}
	res := gjson.GetBytes(body, p)
	if !res.Exists() {
		return res, contentError(c, "path %q matched nothing in the output", p)
	}
	return res, nil
}

func (r *Registry) itemText(c *thcl.Content, eval *hcl.EvalContext, out *adapters.Output) (string, error) {
	switch {
	case c.Text != nil:
		return evalString(c, "text", c.Text, eval)
	case c.Path != nil:
		res, err := gjsonValue(c, eval, out)
		if err != nil {
			return "", err
		}
		if res.Type == gjson.String {
			return res.Str, nil
		}
		return res.Raw, nil
	}
	if out == nil || out.Binary {
		return "", contentError(c, "the output is binary (%s); use an image, audio or resource block for it", out.MIMEType)
	}
	return string(out.Body), nil
}

func (r *Registry) itemMedia(c *thcl.Content, eval *hcl.EvalContext, out *adapters.Output) ([]byte, string, error) {
	mt := c.MIMEType
	var data []byte
	switch {
	case c.Data != nil || c.Path != nil:
		var s string
		if c.Data != nil {
			v, err := evalString(c, "data", c.Data, eval)
			if err != nil {
				return nil, "", err
			}
			s = v
		} else {
			res, err := gjsonValue(c, eval, out)
			if err != nil {
				return nil, "", err
			}
			s = res.String()
		}
		b, err := thcl.DecodeBase64(s)
		if err != nil {
			return nil, "", contentError(c, "the data is not base64: %v", err)
		}
		data = b
	case c.File != "":
		fc, err := files.Read(c.File, files.DefaultMaxSize)
		if err != nil {
			return nil, "", contentError(c, "cannot read its file: %v", fileProblem(err))
		}
		data = fc.Data
	default:
		if out == nil {
			return nil, "", contentError(c, "no data")
		}
		if !out.Binary {
			// Text output may be base64 (a command that prints it so).
			b, err := thcl.DecodeBase64(strings.TrimSpace(string(out.Body)))
			if err != nil {
				hint := "have the backend give base64, or, for a command that prints the bytes, set binary = true in its exec block"
				if strings.Contains(out.MIMEType, "json") {
					hint = `give the item a path = "..." (a gjson path to the base64 data in the JSON) and a mime_type`
				}
				return nil, "", contentError(c, "the output is text (%s), not an image or sound, and not base64; %s", cmp.Or(out.MIMEType, "no content type"), hint)
			}
			data = b
		} else {
			data = out.Body
			if mt == "" {
				mt = out.MIMEType
			}
		}
	}
	if mt == "" || mt == "application/octet-stream" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(data))
	}
	if !strings.HasPrefix(mt, string(c.Kind)+"/") {
		return nil, "", contentError(c, "the data is %s, not an %s; set mime_type in the block if the upstream mislabels it", mt, c.Kind)
	}
	return data, mt, nil
}

// noResourceError is the refusal of a resource item whose URI names no
// resource that can be read: when the URI is made of a prompt's arguments,
// the client's error.
type noResourceError struct{ error }

func (e *noResourceError) Unwrap() error { return e.error }

// fileProblem says why a content item's file could not be read, without
// its path (the client is told where in the config, not where the config
// lives): that it is missing, what it is when it is not a regular file (a
// FIFO or a directory put in its place since the config was loaded), or
// why it could not be opened. files.Read's errors all read
// "resource not found"; their causes say which.
func fileProblem(err error) error {
	var nr *regular.NotRegularError
	var pe *fs.PathError
	switch {
	case errors.As(err, &nr):
		return fmt.Errorf("the file is %s, not a regular file; toolhost reads only regular files", regular.Kind(nr.Mode))
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("the file is missing")
	case errors.As(err, &pe):
		return fmt.Errorf("the file cannot be opened: %v", pe.Err)
	case errors.Is(err, files.ErrNotFound):
		return errors.New("the file cannot be opened")
	}
	return err
}

func (r *Registry) itemResource(ctx context.Context, c *thcl.Content, eval *hcl.EvalContext, out *adapters.Output) (*mcp.ResourceContents, error) {
	uri, err := evalString(c, "uri", c.URI, eval)
	if err != nil {
		return nil, err
	}
	rc := &mcp.ResourceContents{URI: uri, MIMEType: c.MIMEType}
	switch {
	case c.Text != nil:
		text, err := evalString(c, "text", c.Text, eval)
		if err != nil {
			return nil, err
		}
		rc.Text = text
		if rc.MIMEType == "" {
			rc.MIMEType = "text/plain"
		}
		return keepEmpty(rc), nil
	case c.File != "":
		fc, err := files.Read(c.File, files.DefaultMaxSize)
		if err != nil {
			return nil, contentError(c, "cannot read its file: %v", fileProblem(err))
		}
		fillResource(rc, fc.Data, fc.Text, fc.MIMEType)
		return rc, nil
	}
	if r.declaresResource(uri) {
		res, err := r.ReadResource(ctx, uri)
		if err != nil {
			return nil, contentError(c, "cannot read resource %s: %w", uri, err)
		}
		got := res.Contents[0]
		if c.MIMEType != "" {
			got.MIMEType = c.MIMEType
		}
		return got, nil
	}
	for _, t := range r.templates {
		if v, ok := t.value(uri); ok && strings.Contains(v, "/") {
			return nil, &noResourceError{contentError(c, "resource template %q serves no URI whose %s holds a \"/\" (%q): clients could not read it; write the template's variable as {+%s} to serve files in subfolders",
				t.decl.Name, t.decl.Variable, v, t.decl.Variable)}
		}
	}
	if out == nil || !c.Output {
		return nil, &noResourceError{contentError(c, "no resource is declared with URI %q; declare one, or give the block text or file", uri)}
	}
	fillResource(rc, out.Body, !out.Binary, out.MIMEType)
	return rc, nil
}

// fillResource sets a resource's text or blob and its media type when not
// declared.
func fillResource(rc *mcp.ResourceContents, data []byte, text bool, mt string) {
	if rc.MIMEType == "" {
		rc.MIMEType = mt
	}
	if text && utf8.Valid(data) {
		rc.Text = string(data)
	} else {
		rc.Blob = data
	}
	keepEmpty(rc)
}

// keepEmpty makes resource contents that are empty valid on the wire, and
// returns rc. The SDK leaves out a "text" that is "" and a "blob" that is
// nil, and contents with neither are refused by clients (the schema wants
// one of them, and the official TypeScript SDK rejects the whole result):
// empty contents go out as an empty blob.
func keepEmpty(rc *mcp.ResourceContents) *mcp.ResourceContents {
	if rc.Text == "" && len(rc.Blob) == 0 {
		rc.Blob = []byte{}
	}
	return rc
}

// declaresResource reports whether uri is a declared resource or falls under
// a resource template.
func (r *Registry) declaresResource(uri string) bool {
	if _, ok := r.resources[uri]; ok {
		return true
	}
	for _, t := range r.templates {
		if t.matches(uri) {
			return true
		}
	}
	return false
}

// unsubscribable says why a client cannot subscribe to uri, in words that
// end a sentence; "" when it can. It can to a declared resource, and to a
// URI of a resource template whose value a read would take: one that
// decodes and holds no encoded separator, that the template's backend does
// not refuse by itself (nothing runs), or that names a file the
// template's directory could serve: a regular file there (looked up, not
// opened), or none yet, since a client may subscribe to a file before it
// is made and is told when it is. A name that escapes the directory is
// refused as a name the template does not take.
func (r *Registry) unsubscribable(uri string) string {
	if _, ok := r.resources[uri]; ok {
		return ""
	}
	for _, t := range r.templates {
		if !t.matches(uri) {
			continue
		}
		d := t.decl
		name, ok := t.name(uri)
		switch {
		case !ok:
			return fmt.Sprintf("its %s is not a value resource template %q serves (it holds an encoded \"/\", \"\\\" or NUL, or a %%-escape that does not decode)", d.Variable, d.Name)
		case d.Backend != nil:
			ac, ok := d.Backend.(adapters.ArgumentChecker)
			if !ok {
				return ""
			}
			eval := &hcl.EvalContext{Functions: r.functions.Functions,
				Variables: map[string]cty.Value{"param": cty.ObjectVal(map[string]cty.Value{d.Variable: cty.StringVal(name)})}}
			if err := ac.CheckArguments(&adapters.Input{Eval: eval}); err != nil {
				return fmt.Sprintf("resource template %q refuses its %s: %v", d.Name, d.Variable, err)
			}
			return ""
		case !t.dir.MayHave(name):
			return fmt.Sprintf("resource template %q cannot serve a file called %s (not a name it takes, or not a regular file)", d.Name, preview([]byte(name), nil))
		}
		return ""
	}
	return "no resource has this URI and no resource template matches it"
}

func (r *Registry) itemLink(c *thcl.Content, eval *hcl.EvalContext) (mcp.Content, error) {
	uri, err := evalString(c, "uri", c.URI, eval)
	if err != nil {
		return nil, err
	}
	l := &mcp.ResourceLink{URI: uri}
	if res, ok := r.resources[uri]; ok {
		l.Name, l.Title, l.Description, l.MIMEType = res.Name, res.Title, res.Description, res.MIMEType
	}
	if c.Name != "" {
		l.Name = c.Name
	}
	if c.Title != "" {
		l.Title = c.Title
	}
	if c.Description != "" {
		l.Description = c.Description
	}
	if c.MIMEType != "" {
		l.MIMEType = c.MIMEType
	}
	if l.Name == "" {
		l.Name = linkName(uri)
	}
	return l, nil
}

// linkName is a name for a link to uri: its last path segment, or the URI.
func linkName(uri string) string {
	if u, err := url.Parse(uri); err == nil {
		p := u.Path
		if p == "" {
			p = u.Opaque
		}
		if base := path.Base(p); base != "." && base != "/" && base != "" {
			return base
		}
		if u.Host != "" {
			return u.Host
		}
	}
	return uri
}

// outputContent is the content of a tool without a result block: the
// output as text, or as an image or a sound when it is one, or as an
// embedded resource for other binary output.
func outputContent(tool string, out *adapters.Output) mcp.Content {
	if out.Binary {
		switch {
		case strings.HasPrefix(out.MIMEType, "image/"):
			return &mcp.ImageContent{Data: out.Body, MIMEType: out.MIMEType}
		case strings.HasPrefix(out.MIMEType, "audio/"):
			return &mcp.AudioContent{Data: out.Body, MIMEType: out.MIMEType}
		}
		return &mcp.EmbeddedResource{Resource: keepEmpty(&mcp.ResourceContents{
			URI: "toolhost://tools/" + tool + "/output", MIMEType: out.MIMEType, Blob: out.Body,
		})}
	}
	return &mcp.TextContent{Text: outputText(out)}
}

// outputText is the text of a content item of out, which is text: its
// body, and a note when it was cut.
func outputText(out *adapters.Output) string {
	text := string(out.Body)
	if out.Truncated {
		text += fmt.Sprintf("\n[output truncated at %d bytes]", len(out.Body))
	}
	return text
}

// outputResult is the result of a tool without a result block: the output
// as its one content item. A text item is made with the result and its
// list of items in one allocation (textResult), for it is most calls'.
func outputResult(tool string, out *adapters.Output) *mcp.CallToolResult {
	if out.Binary {
		return &mcp.CallToolResult{Content: []mcp.Content{outputContent(tool, out)}}
	}
	r := &textResult{text: mcp.TextContent{Text: outputText(out)}}
	r.items[0] = &r.text
	r.res.Content = r.items[:]
	return &r.res
}

// textResult is a result of one text item, with the item and the list
// that holds it.
type textResult struct {
	res   mcp.CallToolResult
	items [1]mcp.Content
	text  mcp.TextContent
}

// Protocol versions that brought content types: audio came with
// 2025-03-26, resource_link with 2025-06-18.
const (
	versionAudio        = "2025-03-26"
	versionResourceLink = "2025-06-18"
)

// forProtocol rewrites the content items of a result that the client's
// protocol version does not know (version strings are dates, so they
// compare as strings): a resource_link becomes a text item naming the
// resource, audio a text item saying what was left out. The result is
// changed in place; an empty version (not known) changes nothing.
func forProtocol(res *mcp.CallToolResult, version string) {
	if res == nil || version == "" || version >= versionResourceLink {
		return
	}
	for i, c := range res.Content {
		switch c := c.(type) {
		case *mcp.ResourceLink:
			text := "Resource: " + c.URI
			if name := cmp.Or(c.Title, c.Name); name != "" && name != c.URI {
				text = fmt.Sprintf("Resource %s: %s", name, c.URI)
			}
			if c.Description != "" {
				text += " (" + c.Description + ")"
			}
			res.Content[i] = &mcp.TextContent{Text: text}
		case *mcp.AudioContent:
			if version < versionAudio {
				res.Content[i] = &mcp.TextContent{Text: fmt.Sprintf("[%s audio, %d bytes, left out: protocol version %s has no audio content]", c.MIMEType, len(c.Data), version)}
			}
		}
	}
}

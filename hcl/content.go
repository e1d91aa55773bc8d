package hcl

import (
	"encoding/base64"
	"fmt"
	"mime"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/toolhost/toolhost/internal/attr"
)

// ContentKind is the type of a content block: the kind of item it adds to a
// tool result or a prompt message.
type ContentKind string

// The content kinds, named as their blocks and as MCP names their items
// (resource is an embedded resource).
const (
	ContentText         ContentKind = "text"
	ContentImage        ContentKind = "image"
	ContentAudio        ContentKind = "audio"
	ContentResource     ContentKind = "resource"
	ContentResourceLink ContentKind = "resource_link"
)

// Content is a content block: one item of a tool result's content (in a
// result block) or the content of a prompt message. Where the item's data
// comes from is one of Text, Path, Data, File, a declared resource (for
// resource blocks, by URI) or, in tool results, the backend's output
// (Output).
type Content struct {
	Kind ContentKind
	// Text is a string expression: the text of a text item, or of an
	// embedded resource. Nil when not given.
	Text hcl.Expression
	// Path is a gjson path expression over the backend's JSON output: the
	// text of a text item, or the base64 data of an image or audio item.
	Path hcl.Expression
	// Data is an expression of base64 data (image, audio).
	Data hcl.Expression
	// File is the absolute path of a file whose bytes are the item (image,
	// audio, resource). Read at call time, so that edits show.
	File string
	// URI is the resource's URI expression (resource, resource_link).
	URI hcl.Expression
	// MIMEType is the declared media type; "" means known from the source
	// (the file's extension, the output's Content-Type, the declared
	// resource).
	MIMEType string
	// Name, Title and Description describe a resource_link item.
	Name, Title, Description string
	// Output is set when the item is the backend's output itself.
	Output    bool
	DeclRange hcl.Range
	// FileRange is the range of the file argument, for messages.
	FileRange hcl.Range
}

// contentBlockTypes are the content block types, as nested block schemas.
var contentBlockTypes = []hcl.BlockHeaderSchema{
	{Type: string(ContentText)},
	{Type: string(ContentImage)},
	{Type: string(ContentAudio)},
	{Type: string(ContentResource)},
	{Type: string(ContentResourceLink)},
}

// isContentBlock reports whether a block type is a content block's.
func isContentBlock(typ string) bool {
	for _, b := range contentBlockTypes {
		if b.Type == typ {
			return true
		}
	}
	return false
}

// textContentSchema is the schema of a text content block.
var textContentSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "text"}, {Name: "path"}},
}

// mediaContentSchema is the schema of an image or audio content block.
var mediaContentSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "data"}, {Name: "path"}, {Name: "file"}, {Name: "mime_type"}},
}

// resourceContentSchema is the schema of a resource content block.
var resourceContentSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "uri", Required: true}, {Name: "text"}, {Name: "file"}, {Name: "mime_type"}},
}

// resourceLinkContentSchema is the schema of a resource_link content block.
var resourceLinkContentSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "uri", Required: true}, {Name: "name"}, {Name: "title"}, {Name: "description"}, {Name: "mime_type"}},
}

// contentScope is what the expressions of content blocks may use.
type contentScope struct {
	// roots are the variables expressions may use: param (and answer) in
	// tools, arg in prompts, with their declared names.
	roots []refRoot
	// eval has root as an unknown value of the arguments' type, for type
	// checks; static evaluates constant attributes.
	eval, static *hcl.EvalContext
	baseDir      string
	// output is set in tool results, where the backend's output can be an
	// item.
	output bool
	// where names the enclosing block for messages ("the result block").
	where string
}

// decodeContent decodes one content block.
func decodeContent(b *hcl.Block, sc *contentScope) (*Content, hcl.Diagnostics) {
	c := &Content{Kind: ContentKind(b.Type), DeclRange: b.DefRange}
	var schema *hcl.BodySchema
	switch c.Kind {
	case ContentText:
		schema = textContentSchema
	case ContentImage, ContentAudio:
		schema = mediaContentSchema
	case ContentResource:
		schema = resourceContentSchema
	default:
		schema = resourceLinkContentSchema
	}
	content, diags := b.Body.Content(schema)
	if diags.HasErrors() {
		return nil, diags
	}
	attrs := content.Attributes
	// expr checks an expression evaluated at call time: its references,
	// and that it can be a string.
	expr := func(name string) hcl.Expression {
		a, ok := attrs[name]
		if !ok {
			return nil
		}
		refs := checkRefs(a.Expr.Variables(), sc.roots)
		diags = append(diags, refs...)
		if refs.HasErrors() {
			return a.Expr
		}
		v, d := a.Expr.Value(sc.eval)
		diags = append(diags, d...)
		if !d.HasErrors() && !stringable(v) {
			diags = append(diags, rangeDiag(a, "Not a string", fmt.Sprintf("%s in %s block must be a string, and this is %s. Convert it, as in jsonencode(...) or join(\", \", ...).", name, withArticle(b.Type), attr.WantName(v.Type()))))
		}
		// Data fixed in the config is checked once, at load: every
		// call would fail on base64 that is not.
		if name == "data" && !d.HasErrors() && v.IsWhollyKnown() && !v.IsNull() {
			v, _ = v.UnmarkDeep()
			if sv, err := convert.Convert(v, cty.String); err == nil {
				if _, err := DecodeBase64(sv.AsString()); err != nil {
					diags = append(diags, rangeDiag(a, "Invalid base64", fmt.Sprintf("data in %s block is base64 (or a data: URI with base64), and this is not: %s. Correct it, or use file = \"...\" for a file.", withArticle(b.Type), err)))
				}
			}
		}
		return a.Expr
	}
	c.Text = expr("text")
	c.Path = expr("path")
	c.Data = expr("data")
	c.URI = expr("uri")
	diags = append(diags, stringAttr(attrs, "mime_type", sc.static, &c.MIMEType)...)
	diags = append(diags, stringAttr(attrs, "name", sc.static, &c.Name)...)
	diags = append(diags, stringAttr(attrs, "title", sc.static, &c.Title)...)
	diags = append(diags, stringAttr(attrs, "description", sc.static, &c.Description)...)
	if a, ok := attrs["file"]; ok {
		diags = append(diags, stringAttr(attrs, "file", sc.static, &c.File)...)
		if c.File != "" {
			c.File = resolvePath(sc.baseDir, c.File)
			c.FileRange = a.Expr.Range()
			diags = append(diags, checkPath(a, c.File, false)...)
		}
	}
	if c.Path != nil && !sc.output {
		diags = append(diags, rangeDiag(attrs["path"], "path without output", fmt.Sprintf("path reads the backend's JSON output, and %s has none. Use text (or data, for images and sounds) instead.", sc.where)))
	}

	// Exactly one source of data.
	var sources []string
	for _, n := range []string{"text", "path", "data", "file"} {
		if _, ok := attrs[n]; ok {
			sources = append(sources, n)
		}
	}
	if len(sources) > 1 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "More than one source",
			Detail:   fmt.Sprintf("%s block takes its data from one of %s, and this one has %s. Keep one of them.", capitalize(withArticle(b.Type)), contentSources(c.Kind), strings.Join(sources, " and ")),
			Subject:  attrs[sources[1]].NameRange.Ptr(),
		})
	}
	if len(sources) == 0 {
		switch c.Kind {
		case ContentText, ContentImage, ContentAudio:
			if !sc.output {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Missing " + contentSources(c.Kind),
					Detail:   fmt.Sprintf("%s block in %s needs its data: set %s.", capitalize(withArticle(b.Type)), sc.where, contentSources(c.Kind)),
					Subject:  b.DefRange.Ptr(),
				})
			}
			c.Output = true
		case ContentResource:
			// A declared resource, or the output: decided by the host,
			// which knows every file's resources.
			c.Output = sc.output
		}
	}

	diags = append(diags, c.checkMediaType(b, attrs)...)
	return c, diags
}

// checkMediaType checks an item's mime_type, and for an image or a sound
// from a file with none, sets it from the file's extension.
func (c *Content) checkMediaType(b *hcl.Block, attrs hcl.Attributes) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if c.MIMEType != "" {
		mt, _, err := mime.ParseMediaType(c.MIMEType)
		if err != nil || !strings.Contains(mt, "/") {
			diags = append(diags, rangeDiag(attrs["mime_type"], "Invalid mime_type", fmt.Sprintf("%q is not a media type. Write one such as \"image/png\", \"audio/wav\" or \"text/markdown\".", c.MIMEType)))
		} else if (c.Kind == ContentImage || c.Kind == ContentAudio) && !strings.HasPrefix(mt, string(c.Kind)+"/") {
			diags = append(diags, rangeDiag(attrs["mime_type"], "Wrong media type", fmt.Sprintf("An %s block's mime_type starts with %q, and this is %q. Use %s block for other media, or correct the type.", b.Type, string(c.Kind)+"/", c.MIMEType, withArticle(contentKindFor(mt)))))
		}
	}
	if (c.Kind == ContentImage || c.Kind == ContentAudio) && c.MIMEType == "" {
		switch {
		case c.File != "":
			c.MIMEType = mediaTypeByExt(c.File)
			switch {
			case c.MIMEType == "":
				diags = append(diags, rangeDiag(attrs["file"], "Unknown media type", fmt.Sprintf("The media type of %s cannot be told from its extension. Set mime_type, as in mime_type = \"%s/png\".", filepath.Base(c.File), b.Type)))
			case !strings.HasPrefix(c.MIMEType, string(c.Kind)+"/"):
				// Every call would fail on it.
				diags = append(diags, rangeDiag(attrs["file"], "Wrong media type", fmt.Sprintf("%s is %s by its extension, not %s. Use %s block for it, or set mime_type if the extension is wrong.", filepath.Base(c.File), c.MIMEType, map[ContentKind]string{ContentImage: "an image", ContentAudio: "a sound"}[c.Kind], withArticle(contentKindFor(c.MIMEType)))))
			}
		case c.Data != nil || c.Path != nil:
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Missing mime_type",
				Detail:   fmt.Sprintf("An %s block with base64 data needs its media type: add mime_type, as in mime_type = \"%s\".", b.Type, map[ContentKind]string{ContentImage: "image/png", ContentAudio: "audio/wav"}[c.Kind]),
				Subject:  b.DefRange.Ptr(),
			})
		}
	}
	return diags
}

// contentSources lists the arguments a content kind takes its data from.
func contentSources(k ContentKind) string {
	switch k {
	case ContentText:
		return "text or path"
	case ContentImage, ContentAudio:
		return "data, path or file"
	case ContentResource:
		return "text or file (or a declared resource's uri)"
	}
	return "uri"
}

// contentKindFor is the content block for a media type.
func contentKindFor(mt string) string {
	switch {
	case strings.HasPrefix(mt, "image/"):
		return "image"
	case strings.HasPrefix(mt, "audio/"):
		return "audio"
	}
	return "resource"
}

// mediaTypeByExt is the media type of a file name's extension, without
// parameters; "" when unknown.
func mediaTypeByExt(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	switch ext { // not in every system's table
	case ".md", ".markdown":
		return "text/markdown"
	case ".wav":
		return "audio/wav"
	case ".mp3":
		return "audio/mpeg"
	case ".ogg", ".oga":
		return "audio/ogg"
	case ".webp":
		return "image/webp"
	case ".png":
		return "image/png"
	}
	mt, _, err := mime.ParseMediaType(mime.TypeByExtension(ext))
	if err != nil {
		return ""
	}
	return mt
}

// MediaTypeByExt is the media type of a file name's extension, without
// parameters; "" when unknown.
func MediaTypeByExt(name string) string { return mediaTypeByExt(name) }

// DecodeBase64 decodes the data of an image or audio item: standard or
// URL-safe base64, padded or not, or a data: URI's base64 payload. Space
// around it is ignored, and line breaks within it: base64 written in a
// heredoc ends with a line break, after its padding.
func DecodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		if _, payload, ok := strings.Cut(rest, ";base64,"); ok {
			s = payload
		}
	}
	s = strings.TrimRight(s, "=")
	if b, err := base64.RawStdEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.RawURLEncoding.DecodeString(s)
}

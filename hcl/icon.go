package hcl

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"net/url"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/internal/attr"
	"github.com/toolhost/toolhost/internal/files"
	"github.com/toolhost/toolhost/internal/regular"
)

// Icon is an icon block: an image a client may show for the tool.
type Icon struct {
	// Src is an https URL or a data: URI (from file).
	Src      string
	MIMEType string
	Sizes    []string
	Theme    string
	// File is the path of the file the data: URI was read from at load,
	// "" for an icon given by src; FileSum is the SHA-256 of what was
	// read. A reload watches the file and compares it with FileSum.
	File      string
	FileSum   [32]byte
	DeclRange hcl.Range
}

// iconBlockSchema is the schema of an icon block.
var iconBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "src"},
		{Name: "file"},
		{Name: "mime_type"},
		{Name: "sizes"},
		{Name: "theme"},
	},
}

// decodeIcon decodes an icon block. An icon is an https URL (src) or a
// file next to the config (file), sent as a data: URI.
func decodeIcon(b *hcl.Block, static *hcl.EvalContext, baseDir string) (*Icon, hcl.Diagnostics) {
	content, diags := b.Body.Content(iconBlockSchema)
	ic := &Icon{DeclRange: b.DefRange}
	attrs := content.Attributes
	diags = append(diags, stringAttr(attrs, "src", static, &ic.Src)...)
	diags = append(diags, stringAttr(attrs, "mime_type", static, &ic.MIMEType)...)
	diags = append(diags, stringAttr(attrs, "theme", static, &ic.Theme)...)
	if a, ok := attrs["sizes"]; ok {
		v, d := attr.Constant(a, static, cty.List(cty.String))
		diags = append(diags, d...)
		if !d.HasErrors() && !v.IsNull() {
			for _, e := range v.AsValueSlice() {
				ic.Sizes = append(ic.Sizes, e.AsString())
			}
		}
	}
	var file string
	diags = append(diags, stringAttr(attrs, "file", static, &file)...)
	_, hasSrc := attrs["src"]
	_, hasFile := attrs["file"]
	switch {
	case hasSrc == hasFile:
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Icon needs src or file",
			Detail:   "An icon block has either src = \"https://...\" (a URL clients fetch) or file = \"icon.png\" (a file next to the config, sent inline). Keep one of them.",
			Subject:  b.DefRange.Ptr(),
		})
	case hasFile && file != "":
		p := resolvePath(baseDir, file)
		data, err := regular.ReadFile(p, maxIconSize, errIconTooLarge)
		var nr *regular.NotRegularError
		switch {
		case errors.As(err, &nr):
			diags = append(diags, rangeDiag(attrs["file"], "Icon not a regular file", notRegularDetail("icon file", nr)+" Give the path of an image file, relative to the config file's directory."))
		case err == errIconTooLarge:
			diags = append(diags, rangeDiag(attrs["file"], "Icon too large", fmt.Sprintf("The icon file %s is larger than %d KiB; icons are sent inline with every tools/list, so keep them under that, or serve it and use src.", p, maxIconSize>>10)))
		case err != nil:
			d := rangeDiag(attrs["file"], "Missing file", fmt.Sprintf("The icon file %s cannot be read: %v. Paths are relative to the config file's directory.", p, files.Bare(err)))
			if errors.Is(err, fs.ErrNotExist) {
				d.Extra = MissingPath{Path: p}
			}
			diags = append(diags, d)
		default:
			if ic.MIMEType == "" {
				ic.MIMEType = mediaTypeByExt(p)
			}
			if ic.MIMEType == "" {
				ic.MIMEType, _, _ = mime.ParseMediaType(http.DetectContentType(data))
			}
			ic.Src = "data:" + ic.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(data)
			ic.File, ic.FileSum = p, sha256.Sum256(data)
		}
	case hasSrc && ic.Src != "":
		u, err := url.Parse(ic.Src)
		if err != nil || (u.Scheme != "https" && u.Scheme != "data") {
			diags = append(diags, rangeDiag(attrs["src"], "Invalid icon src", fmt.Sprintf("%q is not an https URL or a data: URI. Clients fetch icons only over https; for a local file, use file = \"icon.png\".", ic.Src)))
		}
	}
	if ic.Theme != "" && ic.Theme != "light" && ic.Theme != "dark" {
		diags = append(diags, rangeDiag(attrs["theme"], "Invalid theme", fmt.Sprintf("theme is \"light\" (for light backgrounds) or \"dark\"; %q is neither.", ic.Theme)))
	}
	return ic, diags
}

// maxIconSize caps an icon file sent inline.
const maxIconSize = 64 << 10

// errIconTooLarge says an icon file is larger than maxIconSize.
var errIconTooLarge = errors.New("icon file too large")

package hcl

import (
	"github.com/hashicorp/hcl/v2"
)

// Version is toolhost's version, reported as the default server version.
var Version = "0.1.0"

// Server is the server block: how the server introduces itself to clients.
type Server struct {
	Name         string
	Title        string
	Version      string
	Instructions string
	DeclRange    hcl.Range
}

var serverBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "name"},
		{Name: "title"},
		{Name: "version"},
		{Name: "instructions"},
	},
}

func defaultServer() *Server {
	return &Server{Name: "toolhost", Version: Version}
}

func decodeServer(block *hcl.Block, ctx *hcl.EvalContext) (*Server, hcl.Diagnostics) {
	content, diags := block.Body.Content(serverBlockSchema)
	s := defaultServer()
	s.DeclRange = block.DefRange
	diags = append(diags, stringAttr(content.Attributes, "name", ctx, &s.Name)...)
	diags = append(diags, stringAttr(content.Attributes, "title", ctx, &s.Title)...)
	diags = append(diags, stringAttr(content.Attributes, "version", ctx, &s.Version)...)
	diags = append(diags, stringAttr(content.Attributes, "instructions", ctx, &s.Instructions)...)
	return s, diags
}

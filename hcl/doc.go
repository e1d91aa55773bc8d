// Package hcl is toolhost's config language: it parses tools.hcl files (in
// HCL's native or JSON syntax), decodes their blocks, and reports every
// problem as an HCL diagnostic with its source range. Load is the entry
// point (config.go).
//
// The top-level blocks, each decoded in a file of its own:
//
//   - server (server.go): how the server introduces itself, its limits and
//     the network policy of the http backends.
//   - tool (tool.go): an MCP tool and the backend that runs it. Its nested
//     blocks are param (param.go), or input_schema in their place
//     (inputschema.go: kept as written, in the order written, by
//     inputschema_json.go; a call's failures worded by
//     inputschema_errors.go); result, with its field blocks and content items
//     (result.go, content.go); ask, a form the user fills in (ask.go);
//     icon (icon.go); annotations (annotations.go); and example, a
//     recorded call checked offline (example.go). confirm asks the user
//     before each call; offline says whether the tool answers from its
//     examples when toolhost runs with --offline (offline.go).
//   - resource and resource_template (resource.go): a file, or a
//     directory's files, or a backend's output, served under a URI or a
//     URI template.
//   - prompt (prompt.go): a message template with its arg and message
//     blocks.
//
// A tool, resource or resource template runs one backend block, of a kind
// registered in package adapters: http, exec or template. A tool whose
// result gives every content item its own data (a text, a file) has no
// backend.
//
// Beside the blocks: parse.go parses files (large ones in pieces, on every
// core) and syntaxerrors.go words the parser's errors; types.go parses
// type expressions; functions.go has the functions expressions may call;
// refs.go checks references to param and answer; validate.go warns of
// likely mistakes in a tool that decodes; names.go suggests the names
// meant by misspelt or foreign ones; encode.go and schemajson.go render
// values and schemas as JSON.
//
// Other packages usually import it under another name, since it shares its
// name with github.com/hashicorp/hcl/v2, whose types it returns.
package hcl

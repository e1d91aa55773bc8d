package openapi

// Document is what Convert reads of an OpenAPI document, whichever
// version it was written in: Parse fills it from libopenapi's model of
// OpenAPI 3.x (from3.go) or of Swagger 2.0 (from2.go), its $refs
// resolved (a schema reached by two $refs is one *Schema, so a cycle is
// a cycle of pointers).
type Document struct {
	// OpenAPI is the version the header names: the document's, or 3.0.3
	// for a Swagger 2.0 one (what it is read as).
	OpenAPI  string
	Info     *Info
	Servers  []*Server
	Paths    map[string]*PathItem
	Security []SecurityRequirement
	// SecuritySchemes are the schemes by name (a 2.0 document's
	// securityDefinitions).
	SecuritySchemes map[string]*SecurityScheme
	// Webhooks is the number of webhooks, which are not imported.
	Webhooks int
}

// Info is the title and version of the API.
type Info struct {
	Title, Version string
}

// Server is a server's URL and the defaults of its variables.
type Server struct {
	URL       string
	Variables map[string]string
}

// PathItem is one path: its operations by method, its servers and the
// parameters its operations share.
type PathItem struct {
	Operations map[string]*Operation // by upper-case method
	Servers    []*Server
	Parameters []*Parameter
}

// GetOperation is the operation of method (upper case), nil for none.
func (p *PathItem) GetOperation(method string) *Operation {
	return p.Operations[method]
}

// Operation is one operation.
type Operation struct {
	OperationID          string
	Summary, Description string
	Deprecated           bool
	Tags                 []string
	Parameters           []*Parameter
	RequestBody          *RequestBody
	// Responses are by status code, as written ("200", "2XX").
	Responses map[string]*Response
	// Callbacks is the number of callbacks, which are not imported.
	Callbacks int
	// Security is nil when the operation names none (the document's
	// apply), and points to an empty list for security: [].
	Security *[]SecurityRequirement
	Servers  []*Server
}

// Parameter is a path, query, header or cookie parameter.
type Parameter struct {
	Name, In, Description, Style string
	Required                     bool
	Explode                      *bool
	Schema                       *Schema
	Content                      map[string]*MediaType
	// Example is the parameter's example, nil for none; Examples its
	// named examples' values (those that have one).
	Example  any
	Examples map[string]any
}

// RequestBody is an operation's request body.
type RequestBody struct {
	Description string
	Required    bool
	Content     map[string]*MediaType
}

// MediaType is one media type of a body: its schema and examples.
type MediaType struct {
	Schema   *Schema
	Example  any
	Examples map[string]any
}

// Response is one response of an operation.
type Response struct {
	Content map[string]*MediaType
}

// SecurityScheme is a security scheme (type apiKey, http, oauth2 or
// openIdConnect), as OpenAPI 3 words it.
type SecurityScheme struct {
	Type, In, Name, Scheme string
}

// SecurityRequirement is one alternative of a security list: the
// schemes required together, by name (empty: no credentials needed).
type SecurityRequirement map[string][]string

// Schema is a JSON Schema, with OpenAPI 3.0's nullable folded in as
// Nullable and 3.0's boolean exclusive bounds beside 3.1's numeric ones.
type Schema struct {
	Type                         []string // nil when unset
	Nullable, ReadOnly           bool
	WriteOnly                    bool
	Description, Format, Pattern string
	Enum                         []any
	// Const, Default and Example are nil when unset; Examples is 3.1's
	// list.
	Const, Default, Example any
	Examples                []any
	Min, Max                *float64
	ExclusiveMin            Bound
	ExclusiveMax            Bound
	MinLength               uint64
	MaxLength               *uint64
	MinItems                uint64
	MaxItems                *uint64
	Items                   *Schema
	Properties              map[string]*Schema
	Required                []string
	// AdditionalProperties is the schema of other properties, nil when
	// it is unset or a boolean; NoAdditionalProperties is
	// additionalProperties: false.
	AdditionalProperties   *Schema
	NoAdditionalProperties bool
	AllOf, OneOf, AnyOf    []*Schema
}

// Bound is an exclusive bound: 3.0's boolean (beside minimum or
// maximum) or 3.1's number.
type Bound struct {
	Bool  *bool
	Value *float64
}

// includesNull reports whether a type list names null.
func includesNull(types []string) bool {
	for _, t := range types {
		if t == "null" {
			return true
		}
	}
	return false
}

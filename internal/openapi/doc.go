// Package openapi turns an OpenAPI document (3.0, 3.1, or Swagger 2.0,
// in JSON or YAML) into toolhost HCL: one http tool per operation, with
// its parameters, body, result fields, credentials from the environment,
// hints and examples, for `toolhost import openapi`.
//
// Parse reads and resolves a document with libopenapi, never following
// a $ref outside the document, into a Document (model.go), the little
// of OpenAPI 3 that Convert reads: from3.go fills it from libopenapi's
// 3.x model, from2.go from its Swagger 2.0 model, converting as
// OpenAPI 3.0 words it. Convert writes the HCL, in the canonical style
// of toolhost fmt, for the operations a selection names. Convert refuses
// a large document without a selection, with a SelectionError that lists
// its tags, so that a model is never handed hundreds of tools by
// accident.
//
// What the HCL cannot carry (cookies, multipart and form bodies,
// callbacks, webhooks, security schemes without a header or query form)
// is left out, and a comment at the top of the output says what and why.
package openapi

package openapi_test

import (
	"strings"
	"testing"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/host"
	"github.com/toolhost/toolhost/internal/openapi"
)

// shapesHead starts each document of TestShapes.
const shapesHead = `openapi: 3.0.3
info: {title: Shapes, version: "1"}
servers:
  - url: https://{region}.shapes.example.com/v1
    variables:
      region: {default: eu}
`

// TestShapes converts small documents, each with one feature, and
// checks what the HCL says of it; every result must load.
func TestShapes(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string
		not  []string
	}{
		{"server variables and names", `paths:
  /items/{item-id}:
    get:
      parameters:
        - {name: item-id, in: path, required: true, schema: {type: string, pattern: "^[a-z]+$"}}
        - {name: X-Request-Id, in: header, schema: {type: string}}
        - {name: Accept, in: header, schema: {type: string}}
        - {name: "page[size]", in: query, schema: {type: integer, minimum: 1, maximum: 50, default: 10}}
        - {name: q, in: query, schema: {type: string, pattern: "(?=lookahead)"}}
        - {name: ids, in: query, explode: false, schema: {type: array, items: {type: integer}}}
        - {name: tags, in: query, style: pipeDelimited, schema: {type: array, items: {type: string}}}
      responses:
        "200": {description: ok}
`, []string{`"${env("SHAPES_BASE_URL", "https://eu.shapes.example.com/v1")}/items/${param.item_id}"`,
			`tool "get_items_by_item_id"`, `"X-Request-Id" = param.x_request_id`, `"page[size]" = param.page_size`,
			`pattern = "^[a-z]+$"`, "default = 10", `ids          = param.ids == null ? null : join(",", param.ids)`, `tags         = param.tags == null ? null : join("|", param.tags)`, `description = "GET /items/{item-id}"`, "read_only_hint"},
			[]string{"lookahead", "Accept = param"}},
		{"servers of an operation", `paths:
  /assets:
    post:
      operationId: uploadAsset
      servers: [{url: "https://uploads.shapes.example.com"}]
      responses: {"201": {description: ok}}
  /b:
    servers: [{url: "https://{region}.shapes.example.com/v1", variables: {region: {default: eu}}}]
    get:
      operationId: b
      responses: {"200": {description: ok}}
`, []string{`url    = "https://uploads.shapes.example.com/assets"`, `url    = "${env("SHAPES_BASE_URL", "https://eu.shapes.example.com/v1")}/b"`, "# 2 tools of the document's 2 operations."}, nil},
		{"cycles", `paths:
  /tree:
    post:
      operationId: plantTree
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Node"}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Node"}
components:
  schemas:
    Node:
      type: object
      required: [name]
      properties:
        name: {type: string}
        children: {type: array, items: {$ref: "#/components/schemas/Node"}}
`, []string{`tool "plant_tree"`, "input_schema", `children = param.children`, `field "children"`}, nil},
		{"delete, cookies, callbacks and forms", `paths:
  /items/{id}:
    delete:
      operationId: DeleteItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
        - {name: session, in: cookie, schema: {type: string}}
      callbacks:
        done:
          "{$request.body#/url}":
            post: {responses: {"200": {description: ok}}}
      responses:
        "204": {description: gone}
  /upload:
    post:
      operationId: upload
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema: {type: object, properties: {file: {type: string, format: binary}}}
      responses:
        "200": {description: ok}
`, []string{`tool "delete_item"`, `confirm = "DELETE /items/${param.id}: go ahead?"`, "destructive_hint = true",
			`cookie "session"`, "callbacks (1)", "upload (POST /upload): it needs a request body of type multipart/form-data"},
			[]string{`tool "upload"`}},
		{"credentials", `security:
  - key: []
  - basic: []
paths:
  /a:
    get:
      operationId: a
      responses: {"200": {description: ok}}
  /b:
    get:
      operationId: b
      security: [{basic: []}]
      responses: {"200": {description: ok}}
  /c:
    get:
      operationId: c
      security: [{cookie: []}]
      responses: {"200": {description: ok}}
  /d:
    get:
      operationId: d
      security: [{}]
      responses: {"200": {description: ok}}
components:
  securitySchemes:
    key: {type: apiKey, in: query, name: api_key}
    basic: {type: http, scheme: basic}
    cookie: {type: apiKey, in: cookie, name: sid}
`, []string{`api_key = sensitive(env("SHAPES_API_KEY"))`,
			`Authorization = sensitive("Basic ${base64encode("${env("SHAPES_USERNAME")}:${env("SHAPES_PASSWORD")}")}")`,
			`the security scheme "cookie" (an API key in a cookie): add its credentials by hand`,
			"Credentials come from the environment, never from this file: SHAPES_API_KEY, SHAPES_USERNAME, SHAPES_PASSWORD."},
			nil},
		{"template text in the document", `paths:
  /x:
    get:
      operationId: x
      summary: "Says ${param.secret} and %{ if true }"
      parameters:
        - {name: q, in: query, schema: {type: string, default: "${env(\"HOME\")}", enum: ["${env(\"HOME\")}", b]}}
      responses: {"200": {description: ok}}
`, []string{`"Says $${param.secret} and %%{ if true }"`, `default = "$${env(\"HOME\")}"`}, nil},
		{"line breaks in the document", `paths:
  "/x\n}\ntool \"evil\" {\r# ":
    get:
      responses: {"200": {description: ok}}
  /y:
    get:
      operationId: "y\ntool \"evil\" {"
      summary: "a\nb"
      parameters:
        - {name: "q\nr", in: query, schema: {type: string}}
      responses: {"200": {description: ok}}
`, []string{"# - GET /x\n# }\n# tool \"evil\" {\n# # : its path has spaces or control characters", `tool "y_tool_evil"`, `description = "a b"`, `"q\nr" = param.q_r`}, []string{"\ntool \"evil\""}},
		{"credentials that collide with parameters and with each other", `paths:
  /a:
    get:
      operationId: a
      security: [{key: [], key2: []}]
      parameters:
        - {name: x-api-key, in: header, schema: {type: string}}
        - {name: X-Other, in: header, schema: {type: string}}
      responses: {"200": {description: ok}}
  /b:
    get:
      operationId: b
      security: [{qkey: []}]
      parameters:
        - {name: api_key, in: query, schema: {type: string}}
      responses: {"200": {description: ok}}
  /c:
    get:
      operationId: c
      security: [{basic: [], bearer: []}, {key: []}]
      responses: {"200": {description: ok}}
  /d:
    get:
      operationId: d
      security: [{basic: [], bearer: []}]
      responses: {"200": {description: ok}}
  /e:
    get:
      operationId: e
      security: [{badkey: []}]
      responses: {"200": {description: ok}}
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Api-Key}
    key2: {type: apiKey, in: header, name: X-Other}
    qkey: {type: apiKey, in: query, name: api_key}
    basic: {type: http, scheme: basic}
    bearer: {type: http, scheme: bearer}
    badkey: {type: apiKey, in: header, name: "X Api Key"}
`, []string{`"X-Api-Key" = sensitive(env("SHAPES_X_API_KEY"))`, `"X-Other"   = sensitive(env("SHAPES_X_OTHER"))`,
			`api_key = sensitive(env("SHAPES_API_KEY"))`,
			`the security scheme "bearer" (required together with another scheme that sets the same header): add its credentials by hand`,
			`the security scheme "badkey" (its header "X Api Key" is not a valid header name)`},
			[]string{"param.x_api_key", "param.x_other", "param.api_key", "Bearer"}},
		{"header parameters that are no header names", `paths:
  /a:
    get:
      operationId: a
      parameters:
        - {name: "X Weird", in: header, schema: {type: string}}
        - {name: "Héader", in: header, schema: {type: string}}
      responses: {"200": {description: ok}}
  /b:
    get:
      operationId: b
      parameters:
        - {name: "X Needed", in: header, required: true, schema: {type: string}}
      responses: {"200": {description: ok}}
`, []string{`header parameter "X Weird" (not a valid header name)`, `header parameter "Héader" (not a valid header name)`,
			`b (GET /b): its required header "X Needed" is not a valid header name`},
			[]string{`tool "b"`, `"X Weird" =`}},
		{"bounds that contradict each other", `paths:
  /a:
    get:
      operationId: a
      parameters:
        - {name: n, in: query, schema: {type: integer, minimum: 10, maximum: 1}}
        - {name: s, in: query, schema: {type: string, minLength: 5, maxLength: 2}}
        - {name: l, in: query, schema: {type: array, items: {type: string}, minItems: 3, maxItems: 1}}
        - {name: ok, in: query, schema: {type: integer, minimum: 1, maximum: 1}}
      responses: {"200": {description: ok}}
`, []string{"minimum  = 1\n    maximum  = 1"}, []string{"minimum = 10", "min_length", "max_length", "min_items", "max_items"}},
		{"a path parameter the document forgets, a property without a name", `paths:
  /users/{id}/things/{missing}:
    get:
      operationId: a
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses: {"200": {description: ok}}
  /b:
    get:
      operationId: b
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  "": {type: string}
                  name: {type: string}
`, []string{"a (GET /users/{id}/things/{missing}): its path names {missing}, which none of its parameters defines", `path     = "name"`},
			[]string{`tool "a"`, "@this", "{missing}\""}},
		{"parameters that are credentials", `paths:
  /x/{key}:
    post:
      operationId: x
      parameters:
        - {name: key, in: path, required: true, schema: {type: string}}
        - {name: X-Api-Token, in: header, required: true, schema: {type: string}}
        - {name: access_token, in: query, schema: {type: string}}
        - {name: q, in: query, required: true, schema: {type: string}}
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                pin: {type: string, format: password}
                name: {type: string}
      responses: {"200": {description: ok}}
`, []string{"param \"x_api_token\" {\n    type      = string\n    sensitive = true", "param \"access_token\" {\n    type      = string\n    sensitive = true",
			"param \"pin\" {\n    type      = string\n    sensitive = true"},
			[]string{"param \"q\" {\n    type      = string\n    sensitive", "param \"name\" {\n    type      = string\n    sensitive", "param \"key\" {\n    type      = string\n    sensitive"}},
		{"control characters in a comment", `paths:
  "/a\e[31m\0b":
    get:
      responses: {"200": {description: ok}}
`, []string{"# - GET /a\\u001b[31m\\u0000b: its path has spaces or control characters"}, []string{"\x1b", "\x00"}},
		{"a server URL with credentials and a query", `paths:
  /a:
    get:
      operationId: a
      servers: [{url: "https://bob:hunter2@up.shapes.example.com/v2?api_key=k123#top"}]
      responses: {"200": {description: ok}}
`, []string{`url    = "https://up.shapes.example.com/v2/a"`, "# 1 tool of the document's 1 operation.", "the user, password, query or fragment of the server URL https://up.shapes.example.com/v2 "},
			[]string{"hunter2", "k123", "#top"}},
		{"a body of a JSON media type of its own", `paths:
  /o/{id}:
    patch:
      operationId: patch
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      requestBody:
        required: true
        content:
          application/merge-patch+json:
            schema: {type: object, properties: {name: {type: string}}}
      responses: {"200": {description: ok}}
  /p:
    post:
      operationId: post
      requestBody:
        content:
          "application/vnd.x+json; charset=\"utf-8\"":
            schema: {type: array, items: {type: string}}
      responses: {"200": {description: ok}}
  /q:
    post:
      operationId: any
      requestBody:
        content:
          "*/*":
            schema: {type: object, properties: {name: {type: string}}}
      responses: {"200": {description: ok}}
`, []string{`content_type = "application/merge-patch+json"`, `content_type = "application/vnd.x+json; charset=\"utf-8\""`, `content_type = "application/json"`}, nil},
		{"3.1: properties and required beside a $ref", `openapi: 3.1.0
info: {title: Shapes, version: "1"}
servers: [{url: "https://shapes.example.com/v1"}]
paths:
  /pets:
    post:
      operationId: addPet
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: "#/components/schemas/Base"
              properties:
                name: {type: string, description: "The pet's name", minLength: 1}
                owner: {$ref: "#/components/schemas/Owner"}
              required: [name]
      responses: {"200": {description: ok}}
components:
  schemas:
    Base:
      type: object
      properties:
        id: {type: integer}
    Owner:
      type: object
      properties:
        email: {type: string, format: email}
      required: [email]
`, []string{"id = {", "name = {", `description = "The pet's name"`, "minLength   = 1", `format = "email"`, `required = ["email"]`, `required             = ["name"]`, "owner = param.owner"}, nil},
		{"a header or path parameter that is a list", `paths:
  /h/{ids}:
    delete:
      operationId: h
      parameters:
        - {name: ids, in: path, required: true, schema: {type: array, items: {type: integer}}}
        - {name: X-Ids, in: header, schema: {type: array, items: {type: integer}}}
      responses: {"200": {description: ok}}
`, []string{`"X-Ids" = param.x_ids == null ? null : join(",", param.x_ids)`, `/h/${join(",", param.ids)}"`, `confirm = "DELETE /h/${join(",", param.ids)}: go ahead?"`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := shapesHead + tc.doc
			if strings.HasPrefix(tc.doc, "openapi:") {
				src = tc.doc // a document of another version, whole
			}
			doc, err := openapi.Parse("shapes.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			out, err := openapi.Convert(doc, openapi.Options{Source: "shapes.yaml"})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("the HCL lacks %s:\n%s", w, out)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(string(out), w) {
					t.Errorf("the HCL has %s:\n%s", w, out)
				}
			}
			reg, diags := host.Load([]string{writeConfig(t, out)}, nil)
			if diags.HasErrors() {
				t.Fatalf("the HCL does not load:\n%s\n%s", thcl.FormatDiagnostics(diags), out)
			}
			reg.Close()
		})
	}
}

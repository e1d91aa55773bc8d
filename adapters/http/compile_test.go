package http

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

func TestHTTPCompileDiagnostics(t *testing.T) {
	params := map[string]cty.Type{"city": cty.String, "token": cty.String}
	tests := []struct {
		name string
		src  string
		// want lists, per expected error, its summary, a part of its
		// detail, and the source text its subject covers (a part of it).
		want [][3]string
	}{
		{
			name: "unknown attribute",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  methd = \"GET\"\n}\n",
			want: [][3]string{{"Unsupported argument", `Did you mean "method"?`, "methd"}},
		},
		{
			// The model would choose the names: Host, Cookie, ...
			name: "header names from a param",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  headers = { for k in [param.city] : k => \"x\" }\n}\n",
			want: [][3]string{{"Header names must be constant", "(Host, Cookie", "for k in [param.city]"}},
		},
		{
			name: "missing url",
			src:  "http {\n  method = \"GET\"\n}\n",
			want: [][3]string{{"Missing required argument", "Add it to the http block", "http"}},
		},
		{
			name: "query name from a param",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  query = { (param.q) = \"1\" }\n}\n",
			want: [][3]string{{"Name must be constant", "a map parameter whole, as in query = param.filters", "(param.q)"}},
		},
		{
			name: "header name from a param",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  headers = { (param.q) = \"1\" }\n}\n",
			want: [][3]string{{"Name must be constant", "Write the name literally", "(param.q)"}},
		},
		{
			name: "bad method",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  method = \"FETCH\"\n}\n",
			want: [][3]string{{"Invalid HTTP method", "Use one of GET", `"FETCH"`}},
		},
		{
			name: "bad duration",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  timeout = \"10 seconds\"\n}\n",
			want: [][3]string{{"Invalid timeout", `number with a unit, such as "10s"`, `"10 seconds"`}},
		},
		{
			name: "duration without unit",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  timeout = 10\n}\n",
			want: [][3]string{{"Invalid timeout", `Did you mean "10s"?`, `10`}},
		},
		{
			name: "timeout out of range",
			src:  "http {\n  url = \"https://api.example.com/x\"\n  timeout = \"11m\"\n}\n",
			want: [][3]string{{"Timeout out of range", "at most 10m", `"11m"`}},
		},
		{
			name: "undeclared param",
			src:  "http {\n  url = \"https://api.example.com/w/${param.cty}\"\n}\n",
			want: [][3]string{{"Reference to undeclared parameter", `Did you mean "city"?`, "param.cty"}},
		},
		{
			name: "undeclared param in a header",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  headers = { \"X-Token\" = param.tokn }\n}\n",
			want: [][3]string{{"Reference to undeclared parameter", `Did you mean "token"?`, "param.tokn"}},
		},
		{
			name: "param in a constant-only attribute",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  timeout = param.city\n}\n",
			want: [][3]string{{"Argument must be constant", "cannot refer to param", "param.city"}},
		},
		{
			name: "param in the method",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  method = param.city\n}\n",
			want: [][3]string{{"Argument must be constant", "method", "param.city"}},
		},
		{
			name: "param in the host",
			src:  "http {\n  url = \"https://${param.city}.example.com/w\"\n}\n",
			want: [][3]string{{"Parameter in URL host", "path or the query", "param.city"}},
		},
		{
			name: "param right after the host",
			src:  "http {\n  url = \"${env(\"BASE\", \"https://api.example.com\")}${param.city}\"\n}\n",
			want: [][3]string{{"Parameter in URL host", "another server", "param.city"}},
		},
		{
			name: "unsupported scheme",
			src:  "http {\n  url = \"ftp://files.example.com/x\"\n}\n",
			want: [][3]string{{"Invalid url", "http:// or https://", `"ftp://files.example.com/x"`}},
		},
		{
			name: "unsupported scheme before a param",
			src:  "http {\n  url = \"file://host/${param.city}\"\n}\n",
			want: [][3]string{{"Invalid url", `"file"`, "file://"}},
		},
		{
			// Not "Parameter in URL host": the parameter is in the path of
			// a url that lacks its scheme.
			name: "no scheme before a param",
			src:  "http {\n  url = \"api.example.com/weather?q=${param.city}\"\n}\n",
			want: [][3]string{{"Invalid url", `begins "api.example.com/weather?q=", with no scheme; it must start with http:// or https://, as in "https://api.example.com/weather?q=..."`, "api.example.com"}},
		},
		{
			name: "no scheme before a param in the path",
			src:  "http {\n  url = \"localhost:8080/items/${param.city}\"\n}\n",
			want: [][3]string{{"Invalid url", `begins "localhost:8080/items/", with no scheme`, "localhost:8080"}},
		},
		{
			// url.Parse reads "localhost" as the scheme.
			name: "host and port without scheme",
			src:  "http {\n  url = \"localhost:8080/x\"\n}\n",
			want: [][3]string{{"Invalid url", `no scheme: "localhost:8080/x"; it must start with http:// or https://, as in "https://localhost:8080/x"`, "localhost:8080/x"}},
		},
		{
			// url.Parse: "first path segment in URL cannot contain colon".
			name: "address and port without scheme",
			src:  "http {\n  url = \"127.0.0.1:8080/x\"\n}\n",
			want: [][3]string{{"Invalid url", `no scheme: "127.0.0.1:8080/x"`, "127.0.0.1:8080/x"}},
		},
		{
			// Diagnostics redact env values: the message names the
			// variable that holds the url without a scheme.
			name: "no scheme in an environment variable",
			src:  "http {\n  url = \"${env(\"NO_SCHEME\")}/x\"\n}\n",
			want: [][3]string{{"Invalid url", `The url is built with env("NO_SCHEME"): check that the variable, when set, holds a full URL`, "NO_SCHEME"}},
		},
		{
			name: "no scheme in an environment variable before a param",
			src:  "http {\n  url = \"${env(\"NO_SCHEME\")}/x/${param.city}\"\n}\n",
			want: [][3]string{{"Invalid url", `The url is built with env("NO_SCHEME")`, "NO_SCHEME"}},
		},
		{
			name: "space before the url",
			src:  "http {\n  url = \" https://api.example.com/x\"\n}\n",
			want: [][3]string{{"Invalid url", "spaces or line breaks before or after it; remove them", "https://api.example.com/x"}},
		},
		{
			name: "content type without a subtype",
			src:  "http {\n  method = \"POST\"\n  url = \"https://api.example.com/w\"\n  body = \"x\"\n  content_type = \"json\"\n}\n",
			want: [][3]string{{"Invalid content type", `"json" is not a valid media type (type/subtype). Did you mean "application/json"?`, `"json"`}},
		},
		{
			name: "header value with a newline",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  headers = { \"X-A\" = \"a\\nb\" }\n}\n",
			want: [][3]string{{"Invalid header value", "line break", `"a\nb"`}},
		},
		{
			name: "bad header name",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  headers = { \"X A\" = \"1\" }\n}\n",
			want: [][3]string{{"Invalid header name", "not a valid header name", `"X A"`}},
		},
		{
			name: "body with HEAD",
			src:  "http {\n  method = \"HEAD\"\n  url = \"https://api.example.com/w\"\n  body = \"x\"\n}\n",
			want: [][3]string{{"Body not allowed", "HEAD", `"x"`}},
		},
		{
			name: "body must be a string",
			src:  "http {\n  method = \"POST\"\n  url = \"https://api.example.com/w\"\n  body = { city = param.city }\n}\n",
			want: [][3]string{{"Invalid body", "jsonencode", "city = param.city"}},
		},
		{
			name: "unknown charset and bad max_response",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  charset = \"klingon\"\n  max_response = 0\n  max_redirects = 1.5\n}\n",
			want: [][3]string{
				{"Unknown charset", "gbk", `"klingon"`},
				{"max_response out of range", "between 1", "0"},
				{"Whole number required", "fractions", "1.5"},
			},
		},
		{
			name: "max_response with a unit",
			src:  "http {\n  url = \"https://api.example.com/w\"\n  max_response = \"10MB\"\n}\n",
			want: [][3]string{{"Incorrect attribute value type", "For 10 MiB, write max_response = 10485760, without quotes.", `"10MB"`}},
		},
		{
			name: "all problems collected",
			src:  "http {\n  method = \"GETT\"\n  url = \"https://api.example.com/${param.cty}\"\n  timeout = \"soon\"\n  bogus = 1\n}\n",
			want: [][3]string{
				{"Unsupported argument", "bogus", "bogus"},
				{"Invalid HTTP method", `Did you mean "GET"?`, `"GETT"`},
				{"Reference to undeclared parameter", `Did you mean "city"?`, "param.cty"},
				{"Invalid timeout", "duration", `"soon"`},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := testTool{params: params, env: map[string]string{"NO_SCHEME": "127.0.0.1:8080"}}
			h, diags := tt.compile(t, tc.src)
			if h != nil {
				t.Errorf("compile returned a backend despite errors")
			}
			var errs hcl.Diagnostics
			for _, d := range diags {
				if d.Severity == hcl.DiagError {
					errs = append(errs, d)
				}
			}
			for _, d := range diags {
				t.Logf("%s", d)
			}
			if len(errs) != len(tc.want) {
				t.Fatalf("got %d errors, want %d:\n%s", len(errs), len(tc.want), errs.Error())
			}
			for _, want := range tc.want {
				found := false
				for _, d := range errs {
					if d.Summary != want[0] {
						continue
					}
					found = true
					if !strings.Contains(d.Detail, want[1]) {
						t.Errorf("%s: detail %q does not contain %q", d.Summary, d.Detail, want[1])
					}
					if d.Subject == nil {
						t.Errorf("%s: no subject", d.Summary)
						continue
					}
					if got := string(d.Subject.SliceBytes([]byte(tc.src))); !strings.Contains(got, want[2]) {
						t.Errorf("%s: subject covers %q, want it to cover %q", d.Summary, got, want[2])
					}
				}
				if !found {
					t.Errorf("no %q error in:\n%s", want[0], errs.Error())
				}
			}
		})
	}
}

func TestHTTPCompileWarnings(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // the summary of the one warning; "" for none
	}{
		{"content_type without body", "http {\n  url = \"https://api.example.com/w\"\n  content_type = \"text/plain\"\n}\n", "content_type without body"},
		{"body without method", "http {\n  url = \"https://api.example.com/w\"\n  body = jsonencode({ a = 1 })\n}\n", "Body sent with GET"},
		{"body with GET written out", "http {\n  method = \"GET\"\n  url = \"https://api.example.com/w\"\n  body = jsonencode({ a = 1 })\n}\n", ""},
		{"body with POST", "http {\n  method = \"POST\"\n  url = \"https://api.example.com/w\"\n  body = jsonencode({ a = 1 })\n}\n", ""},
		{"null body without method", "http {\n  url = \"https://api.example.com/w\"\n  body = null\n}\n", ""},
		// Placeholders as OpenAPI, Postman and Express write them.
		{"OpenAPI placeholder", "http {\n  url = \"https://api.example.com/items/{id}\"\n}\n", "Placeholder without ${...}: The url sends {id} as it is written, not the value of the parameter \"id\""},
		{"Postman placeholder", "http {\n  url = \"https://api.example.com/items/{{ id }}?q=${param.q}\"\n}\n", "Placeholder without ${...}: The url sends {{ id }} as it is written"},
		{"Express placeholder", "http {\n  url = \"https://api.example.com:8443/items/:id/tags\"\n}\n", "Placeholder without ${...}: The url sends :id as it is written"},
		{"braces naming no parameter", "http {\n  url = \"https://api.example.com/items/{other}/:x/${param.id}\"\n}\n", ""},
		{"a literal ${id}", "http {\n  url = \"https://api.example.com/items/$${id}\"\n}\n", ""},
		// A url cannot hold a null: an optional parameter without a
		// default fails every call that leaves it out.
		{"optional param in the url", "http {\n  url = \"https://api.example.com/items/${param.opt}\"\n}\n",
			"Optional parameter in url: The parameter \"opt\" is optional and has no default, so every call without it fails"},
		{"optional param in the url's query", "http {\n  url = \"https://api.example.com/items?o=${param.opt}\"\n}\n",
			"Optional parameter in url: pass it in the query argument, which leaves a null out"},
		{"optional param with its null handled", "http {\n  url = \"https://api.example.com/items/${param.opt != null ? param.opt : \"all\"}\"\n}\n", ""},
		{"optional param in query", "http {\n  url = \"https://api.example.com/items\"\n  query = { o = param.opt }\n}\n", ""},
		{"required param in the url", "http {\n  url = \"https://api.example.com/items/${param.id}\"\n}\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tt := testTool{params: map[string]cty.Type{"id": cty.String, "q": cty.String, "opt": cty.String}, optional: []string{"opt"}}
			h, diags := tt.compile(t, tc.src)
			if h == nil || diags.HasErrors() {
				t.Fatalf("diags = %v", diags)
			}
			if tc.want == "" {
				if len(diags) != 0 {
					t.Fatalf("diags = %v, want none", diags)
				}
				return
			}
			summary, detail, _ := strings.Cut(tc.want, ": ")
			if len(diags) != 1 || diags[0].Summary != summary || !strings.Contains(diags[0].Detail, detail) || diags[0].Severity != hcl.DiagWarning {
				t.Fatalf("diags = %v, want one warning %q", diags, tc.want)
			}
			if d := diags[0]; strings.HasPrefix(detail, "The url sends ") {
				// The subject is the placeholder itself.
				written, _, _ := strings.Cut(strings.TrimPrefix(detail, "The url sends "), " as it is written")
				if got := string(d.Subject.SliceBytes([]byte(tc.src))); got != written {
					t.Errorf("subject covers %q, want %q", got, written)
				}
			}
		})
	}
}

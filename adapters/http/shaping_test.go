package http

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

const shapingBody = `{"name":"tea","price":3,"stock":12,"notes":"a long story"}`

const shapingList = `[{"name":"tea","price":3,"stock":12,"notes":"x"},{"name":"cake","price":5,"notes":"y"},7]`

func TestSelect(t *testing.T) {
	fields := cty.List(cty.String)
	tests := []struct {
		name    string
		body    string
		ty      cty.Type
		block   string
		arg     cty.Value
		want    string
		wantErr string
	}{
		{"fields of an object", shapingBody, fields, `choices = ["name", "price", "stock"]`,
			cty.ListVal([]cty.Value{cty.StringVal("price"), cty.StringVal("name")}), `{"name":"tea","price":3}`, ""},
		{"fields of each object of an array", shapingList, fields, `choices = ["name", "stock"]`,
			cty.ListVal([]cty.Value{cty.StringVal("stock")}), `[{"stock":12},{},7]`, ""},
		{"one field as a string", shapingBody, cty.String, `choices = ["name", "price"]`,
			cty.StringVal("name"), `{"name":"tea"}`, ""},
		{"left out: the whole answer", shapingBody, fields, `choices = ["name"]`,
			cty.NullVal(fields), shapingBody, ""},
		{"a field not among the choices", shapingBody, fields, `choices = ["name", "price"]`,
			cty.ListVal([]cty.Value{cty.StringVal("notes")}), "", `may name "name", "price"; "notes" is not one of them`},
		{"a gjson path", shapingList, cty.String, `gjson = true`,
			cty.StringVal("#.name"), `["tea","cake"]`, ""},
		{"a gjson path that matches nothing", shapingBody, cty.String, `gjson = true`,
			cty.StringVal("owner.name"), "", `the path "owner.name" (argument "pick") matches nothing`},
		{"text is left alone", "plain words", cty.String, `gjson = true`,
			cty.StringVal("name"), "plain words", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ct := "application/json"
			if !strings.HasPrefix(tc.body, "{") && !strings.HasPrefix(tc.body, "[") {
				ct = "text/plain"
			}
			srv, last := testRecorder(t, ct, tc.body)
			tt := testTool{params: map[string]cty.Type{"pick": tc.ty}, optional: []string{"pick"}}
			h := tt.mustCompile(t, fmt.Sprintf("http {\n url = %q\n select {\n param = \"pick\"\n %s\n }\n}", srv.URL, tc.block))
			out, err := tt.call(context.Background(), h, map[string]cty.Value{"pick": tc.arg})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(tc.wantErr, "not one of them") && last().method != "" {
					t.Fatal("a request was sent for a field not among the choices")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(out.Body) != tc.want {
				t.Fatalf("body = %s, want %s", out.Body, tc.want)
			}
		})
	}
}

func TestSelectCompileErrors(t *testing.T) {
	tests := []struct {
		ty    cty.Type
		block string
		want  string
	}{
		{cty.String, `param = "other"` + "\n" + `gjson = true`, "Undeclared select parameter"},
		{cty.Number, `param = "pick"` + "\n" + `gjson = true`, "Invalid select parameter type"},
		{cty.String, `param = "pick"`, "select without choices"},
		{cty.String, `param = "pick"` + "\n" + `gjson = true` + "\n" + `choices = ["a"]`, "choices with gjson"},
		{cty.String, `param = "pick"` + "\n" + `choices = []`, "Invalid choices"},
		{cty.String, `gjson = true`, "Missing required argument"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			tt := testTool{params: map[string]cty.Type{"pick": tc.ty}}
			_, diags := tt.compile(t, "http {\n url = \"https://api.example.com/\"\n select {\n"+tc.block+"\n}\n}")
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.want) {
				t.Fatalf("diagnostics = %v, want %q", diags, tc.want)
			}
		})
	}
}

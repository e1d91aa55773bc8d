package http

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/adapters"
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
			if checkShaped(t, out, err, tc.want, tc.wantErr) && strings.Contains(tc.wantErr, "not one of them") && last().method != "" {
				t.Fatal("a request was sent for a field not among the choices")
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
		{cty.List(cty.String), `param = "pick"` + "\n" + `gjson = true`, "with gjson = true, the select parameter is one path, a string"},
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

// TestSelectBlowUps checks that a gjson path cannot make an answer far
// larger than the response: a multipath that repeats a large part, the
// modifiers that multiply, and an answer past max_response are refused.
func TestSelectBlowUps(t *testing.T) {
	big := `{"a":"` + strings.Repeat("x", 600) + `","n":[1,2,3,4,5,6,7,8,9,10],"s":"y"}`
	tests := []struct {
		name    string
		path    string
		want    string
		wantErr string
	}{
		{"a multipath that copies the response past max_response", "[a,a,a]", "",
			`may copy the 643-byte response 3 times (the product of the parts of its multipaths, step by step), more than the answer may hold (1024 bytes, max_response)`},
		{"multipaths in a row, which multiply", "{x:[s,s]}" + strings.Repeat("|{x:[x,x]}", 40), "",
			`may copy the 643-byte response too many times`},
		{"a bracket in a string hides no part", strings.Repeat(`|[#(s=="]"),@this,@this,@this]`, 6)[1:], "",
			`may copy the 17-byte response too many times`},
		{"a multipath of small parts on a small enough response", "{s,n.0}", `{"s":"y","0":1}`, ""},
		{"@pretty", `n|@pretty:{"indent":"    "}`, "", "uses the modifier @pretty"},
		{"@group", `{"k":n}|@group`, "", "uses the modifier @group"},
		{"@dig", `@dig:s`, "", "uses the modifier @dig"},
		{"@tostr", `s|@tostr|@tostr`, "", "uses the modifier @tostr"},
		{"an escaped @ is a key", `\@pretty`, "", `the path "\\@pretty" (argument "pick") matches nothing`},
		{"harmless modifiers", `n|@reverse|0`, `10`, ""},
		{"an answer past max_response", `{a:[` + strings.Repeat(`!"`+strings.Repeat("z", 40)+`",`, 2) + `!"z"]}|[a,a,a]|[@this,@this]|[@this,@this]`, "",
			`the part of the response the argument "pick" picks is larger than 1024 bytes (max_response)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := big
			switch {
			case strings.HasPrefix(tc.path, "{a:"):
				body = `{}` // the literals of the path make the answer
			case tc.want != "" && !strings.Contains(tc.path, "@"), strings.Contains(tc.path, `"]"`):
				body = `{"n":[1],"s":"y"}`
			}
			srv, last := testRecorder(t, "application/json", body)
			tt := testTool{params: map[string]cty.Type{"pick": cty.String}, optional: []string{"pick"}}
			h := tt.mustCompile(t, fmt.Sprintf("http {\n url = %q\n max_response = 1024\n select {\n param = \"pick\"\n gjson = true\n }\n}", srv.URL))
			out, err := tt.call(context.Background(), h, map[string]cty.Value{"pick": cty.StringVal(tc.path)})
			if checkShaped(t, out, err, tc.want, tc.wantErr) && strings.Contains(tc.wantErr, "modifier") && last().method != "" {
				t.Fatal("a request was sent for a refused modifier")
			}
		})
	}
}

// checkShaped checks the answer of a call of a tool with a select block:
// the error wanted when wantErr is set, else the body. It reports
// whether an error was wanted.
func checkShaped(t *testing.T, out *adapters.Output, err error, want, wantErr string) bool {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error = %v, want %q", err, wantErr)
		}
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	if string(out.Body) != want {
		t.Fatalf("body = %s, want %s", out.Body, want)
	}
	return false
}

// TestPathCopies: the copies a gjson path may make of the response are
// the product of its steps' parts, but for a step of distinct plain keys,
// which pick disjoint parts of one object.
func TestPathCopies(t *testing.T) {
	for _, tc := range []struct {
		path string
		want int64
	}{
		{"items.0.name", 1},
		{"#.{id,price}", 1},
		{"#.[id,price,stock]", 1},
		{"{a.b,a.c}", 1},
		{"[a,a]", 2},
		{"[a,a,a]", 3},
		{"{x:a,y:a}", 2},
		{"[a,@this]", 2},
		{`[a\,b,c]`, 2},
		{"{x:[a,a]}|{x:[x,x]}|{x:[x,x]}", 8},
		{"[a,b]|[@this,@this]", 2},
		{"[#(s==1),#(s==1)]", 2},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if got := pathCopies(tc.path, 1<<40); got != tc.want {
				t.Errorf("pathCopies(%q) = %d, want %d", tc.path, got, tc.want)
			}
		})
	}
}

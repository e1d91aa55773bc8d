package hcl

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// gjsonDoc is the document of gjson's SYNTAX.md, with a nested array.
const gjsonDoc = `{
  "name": {"first": "Tom", "last": "Anderson"},
  "age": 37,
  "children": ["Sara", "Alex", "Jack"],
  "fav.movie": "Deer Hunter",
  "friends": [
    {"first": "Dale", "last": "Murphy", "age": 44, "nets": ["ig", "fb", "tw"]},
    {"first": "Roger", "last": "Craig", "age": 68, "nets": ["fb", "tw"]},
    {"first": "Jane", "last": "Murphy", "age": 47, "nets": ["ig", "tw"]}
  ],
  "vals": [{"a": 1, "b": true}, {"a": 2, "b": "true"}],
  "data": [{"index": 1, "title": "a(b"}, {"index": 2, "title": "c"}]
}`

// TestGJSONPathAccepted runs the paths of gjson's SYNTAX.md and README, and
// the examples', through the checker: it must accept every one.
func TestGJSONPathAccepted(t *testing.T) {
	for _, p := range []string{
		"name.last", "age", "children", "children.#", "children.1", "child*.2", "c?ildren.0",
		`fav\.movie`, "friends.#.first", "friends.1.last", "friends.#", "friends.#.age",
		`friends.#(last=="Murphy").first`, `friends.#(last=="Murphy")#.first`, "friends.#(age>45)#.last",
		`friends.#(first%"D*").last`, `friends.#(first!%"D*").last`, `children.#(!%"*a*")`, `children.#(%"*a*")#`,
		`friends.#(nets.#(=="fb"))#.first`, "vals.#(b==~true)#.a", "vals.#(b==~*)#.a", "vals.#(b!=~*)#.a",
		"friends.0.first", "friends|0.first", "friends.0|first", "friends|0|first", "friends|#",
		`friends.#(last="Murphy")#`, `friends.#(last="Murphy")#|0`, `friends.#(last="Murphy")#|#`,
		"children.@reverse", "children.@reverse.0", "children|@reverse", "children|@reverse|0",
		`@pretty:{"sortKeys":true}`, "@this", "@valid", "friends.@flatten", "@keys", "name.@values",
		`{name.first,age,"the_murphys":friends.#(last="Murphy")#.first}`, "[name.first,age]",
		`name.{first,"l":last}`, "!true", `{"x":!"y",age}`, `friends.#[last=="Murphy"].first`,
		`data.#(title=="a(b").index`, `data.#(title=="a\"b")`, "..#", "..0.a", `@join:{"preserve":true}`,
		"@dig:first", "data.#(index<=0)#.{title,index}", `a\\`, `k\)`, "readings.temp(C)", "x.f(a)(b).y", "list[0]",
		// The examples' paths.
		"update_time", "data.#(index<=0)#.{title,hot,url,index}", "nearest_area.0.areaName.0.value",
		"current_condition.0.temp_C", "current_condition.0.weatherDesc.0.value",
	} {
		if problem := gjsonPathProblem(p); problem != "" {
			t.Errorf("%q: %s", p, problem)
		}
	}
}

// TestGJSONPathRejected checks paths that are broken whatever the JSON:
// gjson finds nothing for each, or (tolerated) skips the broken part, and
// the checker says why.
func TestGJSONPathRejected(t *testing.T) {
	for _, tt := range []struct {
		path, want string
		tolerated  bool
	}{
		{"", "is empty", false},
		{"name.", "ends with '.'", false},
		{"name|", "ends with '|'", false},
		{".name", "starts with '.'", false},
		{"|name", "starts with '|'", false},
		{"name..first", "empty part at position 6", false},
		{"name.|first", "empty part", false},
		{"..", "nothing after", false},
		{"friends.#(age>45", "'(' at position 10 that is never closed", false},
		{"friends.#(age>45)#.#(nets.#(==\"fb\")#", "never closed", true},
		{`friends.#(last=="Murphy)`, "string starting at position 17 that is never closed", false},
		{"friends.#()", "empty query #() at position 9", false},
		{"friends.#[]", "empty query", false},
		{"{name.first,age", "'{' at position 1 that is never closed with '}'", false},
		{"[name.first,age", "never closed with ']'", false},
		{"name.first}", "'}' at position 11 that closes nothing", false},
		{"friends.0)", "closes nothing", false},
		{"{name.first,age]", "does not match the '{' at position 1", true},
		{"children.@revers", "did you mean @reverse?", false},
		{"@nosuchthing", "the modifiers are @dig, @flatten", false},
		{"value.#.@id", `did you mean @dig? If @id is a key of the JSON (as JSON-LD's @id), escape the @: "value.#.\\@id"`, false},
		{`@odata\.count`, `@values. If @odata is a key of the JSON (as JSON-LD's @id), escape the @: "\\@odata\\.count"`, false},
		{"{name.first,@bogus}", "@bogus", true},
		{`name.first\`, "escapes nothing", true},
	} {
		got := gjsonPathProblem(tt.path)
		if !strings.Contains(got, tt.want) {
			t.Errorf("%q: got %q, want it to contain %q", tt.path, got, tt.want)
		}
		if r := gjson.Get(gjsonDoc, tt.path); r.Exists() && !tt.tolerated {
			t.Errorf("%q: gjson matches %s, so the path is not broken", tt.path, r.Raw)
		}
	}
}

// FuzzGJSONPath checks that the checker never panics and that a path it
// accepts never panics gjson either.
func FuzzGJSONPath(f *testing.F) {
	for _, s := range []string{"name.first", `friends.#(nets.#(=="fb"))#.first`, `{a,"b":c.#(d>1)#}`, `@pretty:{"x":1}`, "a.", `x\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		if gjsonPathProblem(path) == "" {
			_ = gjson.Get(gjsonDoc, path)
		}
	})
}

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// evalBoundsConfig has a tool for each way the review found to make one
// function call run for many seconds, or a chain of functions build
// hundreds of megabytes.
var evalBoundsConfig = `
tool "distinct_split" {
  param "s" {}
  template {
    text    = length(distinct(split(",", param.s)))
    timeout = "60s"
  }
}
tool "distinct_any" {
  param "x" { type = any }
  template {
    text    = "${length(distinct(param.x))}"
    timeout = "60s"
  }
}
tool "flatten_join" {
  param "ll" { type = list(list(string)) }
  template {
    text    = join(",", flatten(param.ll))
    timeout = "60s"
  }
}
tool "flatten_sort" {
  param "ll" { type = list(list(string)) }
  template {
    text    = "${length(sort(flatten(param.ll)))}"
    timeout = "60s"
  }
}
tool "keys_join" {
  param "o" { type = any }
  template {
    text    = join(",", keys(param.o))
    timeout = "60s"
  }
}
tool "values_join" {
  param "o" { type = any }
  template {
    text    = join(",", values(param.o))
    timeout = "60s"
  }
}
tool "join_mixed" {
  param "x" { type = any }
  template {
    text    = join(",", param.x)
    timeout = "60s"
  }
}
tool "sort_jsondecode" {
  param "s" {}
  template {
    text    = join(",", sort(jsondecode(param.s)))
    timeout = "60s"
  }
}
tool "regex_replace" {
  param "t" {}
  template { text = regex_replace(param.t, "a(.*b)?", "") }
}
tool "regexall" {
  param "t" {}
  template { text = "${length(regexall("a(.*b)?", param.t))}" }
}
tool "replace_regex" {
  param "t" {}
  template { text = replace(param.t, "/a(.*b)?/", "") }
}
tool "setintersection" {
  param "x" { type = any }
  template {
    text    = "${length(setintersection(param.x, param.x))}"
    timeout = "60s"
  }
}
tool "exec_sort_flatten" {
  param "ll" { type = list(list(string)) }
  exec {
    ` + helperCommand(`"echo"`, `"${length(sort(flatten(param.ll)))}"`) + `
    timeout = "20s"
  }
}
tool "b64" {
  param "t" {}
  template { text = ` + b64Chain + `(param.t)` + b64Close + ` }
}
tool "url" {
  param "t" {}
  template { text = urlencode(urlencode(urlencode(urlencode(urlencode(urlencode(urlencode(urlencode(param.t)))))))) }
}
tool "exec_b64" {
  param "t" {}
  exec {
    ` + helperCommand(`"echo"`, b64Chain+`(param.t)`+b64Close) + `
  }
}
prompt "b64" {
  arg "t" {}
  message "user" { text = ` + b64Chain + `(arg.t)` + b64Close + ` }
}
prompt "long" {
  arg "t" {}
  message "user" { text = arg.t }
  message "assistant" { text = arg.t }
}
`

// b64Chain and b64Close nest fourteen calls of base64encode: each makes
// its argument a third larger.
var (
	b64Chain = strings.Repeat("base64encode(", 13) + "base64encode"
	b64Close = strings.Repeat(")", 13)
)

// seqOf is n copies of v.
func seqOf(n int, v any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// numbered is "0,1,...,n-1".
func numbered(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprint(i)
	}
	return strings.Join(parts, ",")
}

// numberedObject is {"k0": "0", ...} with n keys.
func numberedObject(n int) map[string]any {
	o := make(map[string]any, n)
	for i := range n {
		o[fmt.Sprintf("k%d", i)] = fmt.Sprint(i)
	}
	return o
}

// TestEvalSlowFunctionsBounded: the review's calls, each scaled so that
// it ran for more than ten seconds (the tools that should succeed have
// the largest timeout, so that a loaded machine does not fail them) (distinct, tuples converted to lists,
// regular expressions matched again and again) or built hundreds of
// megabytes (base64encode and urlencode chains), answer soon, with their
// result or a short error naming the limit.
func TestEvalSlowFunctionsBounded(t *testing.T) {
	r := loadSource(t, evalBoundsConfig)
	mixed := make([]any, 60000) // within MaxArgValues
	for i := range mixed {
		mixed[i] = "a"
		if i%2 == 1 {
			mixed[i] = 1
		}
	}
	mixedJSON, _ := json.Marshal(mixed)
	big := strings.Repeat("A", 4<<20)
	cases := []struct {
		name, tool string
		args       map[string]any
		// want is the text of the result, or a part of the error when
		// isError.
		want    string
		isError bool
	}{
		{"distinct of split", "distinct_split", map[string]any{"s": numbered(20000)}, "20000", false},
		{"distinct of a mixed tuple", "distinct_any", map[string]any{"x": mixed}, "2", false},
		{"flatten then join", "flatten_join", map[string]any{"ll": seqOf(30000, []string{"a"})}, strings.TrimSuffix(strings.Repeat("a,", 30000), ","), false},
		{"flatten then sort", "flatten_sort", map[string]any{"ll": seqOf(30000, []string{"a"})}, "30000", false},
		{"keys then join", "keys_join", map[string]any{"o": numberedObject(40000)}, "k0,k1,k10,", false},
		{"values then join", "values_join", map[string]any{"o": numberedObject(40000)}, "0,1,10,", false},
		{"join of a mixed array", "join_mixed", map[string]any{"x": mixed}, "a,1,a,1,", false},
		{"sort of a mixed jsondecode", "sort_jsondecode", map[string]any{"s": string(mixedJSON)}, "1,1,1,", false},
		{"regex_replace", "regex_replace", map[string]any{"t": strings.Repeat("a", 30000)}, "did not finish within its timeout", true},
		{"regexall", "regexall", map[string]any{"t": strings.Repeat("a", 30000)}, "did not finish within its timeout", true},
		{"replace with a regex", "replace_regex", map[string]any{"t": strings.Repeat("a", 30000)}, "did not finish within its timeout", true},
		{"regex_replace of a short text", "regex_replace", map[string]any{"t": "xaxab"}, "x", false},
		{"setintersection of a tuple", "setintersection", map[string]any{"x": mixed[:20000]}, "2", false},
		{"setintersection of a long tuple", "setintersection", map[string]any{"x": mixed}, "setintersection() would build a list of 60000 elements", true},
		{"exec command", "exec_sort_flatten", map[string]any{"ll": seqOf(30000, []string{"a"})}, "30000\n", false},
		{"base64encode chain", "b64", map[string]any{"t": big}, "base64encode() would build", true},
		{"urlencode chain", "url", map[string]any{"t": strings.Repeat("/", 1<<20)}, "urlencode() would build", true},
		{"base64encode chain in exec", "exec_b64", map[string]any{"t": big}, "base64encode() would", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, took, _ := callMeasured(t, r, tc.tool, tc.args)
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError != tc.isError {
				t.Fatalf("isError = %v, want %v: %.300s", res.IsError, tc.isError, text)
			}
			if tc.isError && (!strings.Contains(text, tc.want) || len(text) > 1000) {
				t.Errorf("error = %.300q, want a short one containing %q", text, tc.want)
			}
			if !tc.isError && !strings.HasPrefix(text, tc.want) {
				t.Errorf("result = %.100q, want %.100q...", text, tc.want)
			}
			if took > hangBound(5*time.Second) {
				t.Errorf("took %s", took)
			}
			t.Logf("took %s", took)
		})
	}
}

// TestPromptOutputBounded: a prompt's messages stop at a size, however
// they are made: a chain of functions that each make their argument
// larger, or arguments repeated in many messages.
func TestPromptOutputBounded(t *testing.T) {
	r := loadSource(t, evalBoundsConfig)
	cases := []struct {
		name, prompt, arg, want string
	}{
		{"base64encode chain", "b64", strings.Repeat("A", 4<<20), "base64encode() would build"},
		{"messages in all", "long", strings.Repeat("A", 600<<10), "more than the 1048576 bytes of text a prompt may render"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := r.GetPrompt(context.Background(), tc.prompt, map[string]string{"t": tc.arg})
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(err.Error()) > 1000 {
				t.Errorf("error = %.300v, want a short one containing %q", err, tc.want)
			}
			if took := time.Since(start); took > hangBound(5*time.Second) {
				t.Errorf("took %s", took)
			}
		})
	}
}

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// templateLimitParams are the parameters of every tool in the template
// limit tests: each uses some of them.
const templateLimitParams = `
  param "text" {
    type    = string
    default = ""
  }
  param "find" {
    type    = string
    default = ""
  }
  param "repl" {
    type    = string
    default = ""
  }
  param "fmt" {
    type    = string
    default = ""
  }
  param "width" {
    type    = string
    default = "1"
  }
  param "n" {
    type    = number
    default = 1
  }
  param "list" {
    type    = list(string)
    default = []
  }
`

// templateLimitTool is a tool whose backend block is body, with the
// template limit parameters.
func templateLimitTool(name, body string) string {
	return fmt.Sprintf("tool %q {\n%s\n%s\n}\n", name, templateLimitParams, body)
}

// templateLimitText is a template tool rendering text, with extra
// attributes in its block.
func templateLimitText(name, text, extra string) string {
	return templateLimitTool(name, fmt.Sprintf("  template {\n    text = %s\n    %s\n  }", text, extra))
}

// hangBound is how long a call that should stop in about d may take
// before a test calls it stuck: these tests catch calls that ran for
// tens of seconds, not speed (which is for benchmarks), and the race
// detector on a loaded machine slows a call many times over.
func hangBound(d time.Duration) time.Duration {
	if raceEnabled {
		return 15 * d
	}
	return 3 * d
}

// callMeasured calls a tool and returns its result, how long it took and
// how many bytes were allocated meanwhile.
func callMeasured(t *testing.T, r *Registry, tool string, args map[string]any) (*mcp.CallToolResult, time.Duration, uint64) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	res, err := r.CallTool(context.Background(), tool, raw)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return res, took, after.TotalAlloc - before.TotalAlloc
}

// TestTemplateBlowUpsStopEarly: arguments of bounded size that would make
// a template (or a function in an exec block) build hundreds of megabytes
// are refused while the expression is evaluated, before the value is built:
// each call fails fast, allocates little, and its error names the limit,
// the tool and how to raise it. Without the limits, each variant builds
// far more than the cap.
func TestTemplateBlowUpsStopEarly(t *testing.T) {
	a10k := strings.Repeat("a", 10000)
	b10k := strings.Repeat("b", 10000)
	empties := make([]string, 10000)
	letters := strings.Repeat("abcdefghij", 200)
	list200 := make([]string, 200)
	cases := []struct {
		name, text, extra string
		args              map[string]any
		want              []string
		maxTime           time.Duration
		// maxAlloc is what the call may allocate, in MiB, when not 64.
		maxAlloc uint64
	}{
		{name: "replace", text: `replace(param.text, param.find, param.repl)`,
			args: map[string]any{"text": a10k, "find": "a", "repl": b10k},
			want: []string{"replace() would build 100000000 bytes, more than its max_output of 1048576", `raise max_output in the template block of tool "replace" (at most 16777216)`}},
		{name: "replace_empty_find", text: `replace(param.text, param.find, param.repl)`,
			args: map[string]any{"text": a10k, "find": "", "repl": b10k},
			want: []string{"replace() would build"}},
		{name: "format_width", text: `format("%-${param.width}s|", param.text)`,
			args: map[string]any{"width": "100000000", "text": "x"},
			want: []string{"format() would build"}},
		{name: "format_string_param", text: `format(param.fmt, param.text)`,
			args: map[string]any{"fmt": "%100000000s", "text": "x"},
			want: []string{"format() would build"}},
		{name: "format_precision", text: `format(param.fmt, param.n)`,
			args: map[string]any{"fmt": "%.100000000f", "n": 1},
			want: []string{"format() would build"}},
		{name: "format_argument_reused", text: `format(param.fmt, param.text)`,
			args: map[string]any{"fmt": strings.Repeat("%[1]s", 2000), "text": strings.Repeat("y", 50000)},
			want: []string{"format() would build"}},
		{name: "formatlist", text: `join("", formatlist(param.fmt, param.list))`,
			args: map[string]any{"fmt": a10k + "%s", "list": empties},
			want: []string{"formatlist() would build"}},
		{name: "join", text: `join(param.text, param.list)`,
			args: map[string]any{"text": a10k, "list": empties},
			want: []string{"join() would build"}},
		{name: "indent", text: `indent(param.n, param.text)`,
			args: map[string]any{"n": 50000000, "text": "a\nb\nc"},
			want: []string{"indent() would build"}},
		{name: "regex_replace", text: `regex_replace(param.text, param.find, param.repl)`,
			args: map[string]any{"text": a10k, "find": "a", "repl": b10k},
			want: []string{"regex_replace() would build"}},
		{name: "regex_replace_references", text: `regex_replace(param.text, "a+", param.repl)`,
			args: map[string]any{"text": a10k, "repl": strings.Repeat("$0", 5000)},
			want: []string{"regex_replace() would build"}},
		{name: "jsonencode_of_a_for", text: `jsonencode([for i in range(1024) : param.text])`,
			args: map[string]any{"text": strings.Repeat("z", 100000)},
			want: []string{"a for expression", "more than 8388608 (8 times its max_output of 1048576)"}},
		{name: "template_for_directives", text: `"%{for i in range(1024)}%{for j in range(param.n)}${param.text}%{endfor}%{endfor}"`,
			args: map[string]any{"n": 1024, "text": strings.Repeat("w", 100)},
			want: []string{"a for expression", "8 times its max_output"},
			// Many iterations, each leaving garbage.
			maxAlloc: 256},
		{name: "for_over_split", text: `join(",", [for s in split("", param.text) : "${s}${param.text}"])`,
			args: map[string]any{"text": a10k},
			want: []string{"stopped rendering"}},
		{name: "nested_for_iterations", extra: "max_output = 16777216\n    timeout = \"1m\"",
			text: `tostring(length([for a in param.list : length([for b in param.list : length([for c in param.list : 0])])]))`,
			args: map[string]any{"list": list200},
			want: []string{"its for expressions would run", "more than the 262144 a call may run"},
			// HCL allocates for each iteration, garbage at once: the cap
			// on iterations bounds it (without it, the iterations the
			// arguments ask for allocate gigabytes).
			maxAlloc: 512},
		{name: "split_characters", text: `tostring(length(split("", param.text)))`,
			args: map[string]any{"text": strings.Repeat("s", 300000)},
			want: []string{"split() would build a list of 300000 elements, more than the 262144 a list may have"}},
		{name: "jsondecode_values", text: `jsonencode(jsondecode(param.text))`,
			args: map[string]any{"text": "[" + strings.Repeat("1,", 300000) + "1]"},
			want: []string{"jsondecode() would build a list of 300002 elements, more than the 262144 a list may have"}},
		{name: "tonumber_exponent", text: `"${tonumber(param.text)}"`,
			args: map[string]any{"text": "1e10000000"},
			want: []string{"beyond what a 64-bit number holds"}},
		{name: "parseint_digits", text: `"${parseint(param.text, 10)}"`,
			args: map[string]any{"text": strings.Repeat("9", 1000000)},
			want: []string{"parseint() would make a number of 1000000 digits"}},
		{name: "caught_by_try", text: `try(format(param.fmt, param.text), "fallback")`,
			args: map[string]any{"fmt": "%100000000s", "text": "x"},
			want: []string{"format() would build"}},
		{name: "timeout", extra: "max_output = 16777216\n    timeout = \"1s\"",
			text:    `tostring(length([for i in range(param.n) : length([for j in range(param.n) : strlen(regex_replace(param.text, "[a-z]", ""))])]))`,
			args:    map[string]any{"n": 300, "text": letters},
			want:    []string{"did not finish within its timeout of 1s", `raise timeout in the template block of tool "timeout" (at most 1m)`},
			maxTime: 3 * time.Second},
		{name: "rendered_over_cap", extra: "max_output = 1000", text: `"${param.text}${param.text}"`,
			args: map[string]any{"text": strings.Repeat("v", 600)},
			want: []string{"the template rendered 1200 bytes, more than its max_output of 1000", `tool "rendered_over_cap"`}},
	}
	var src strings.Builder
	for _, tc := range cases {
		src.WriteString(templateLimitText(tc.name, tc.text, tc.extra))
	}
	// An exec argument and stdin are held to the cap of every value built
	// outside a template.
	src.WriteString(templateLimitTool("exec_argument", `  exec {
    `+helperCommand(`"echo"`, `format(param.fmt, "x")`)+`
  }`))
	src.WriteString(templateLimitTool("exec_stdin", `  exec {
    `+helperCommand(`"cat"`)+`
    stdin   = replace(param.text, param.find, param.repl)
  }`))
	// In a loop, each value is under that cap, and what they come to in
	// all is held to a total.
	src.WriteString(templateLimitTool("exec_loop", `  exec {
    `+helperCommand(`"cat"`)+`
    stdin   = join("\n", [for x in param.list : format("%-${param.width}s", x)])
  }`))
	src.WriteString(templateLimitTool("http_loop", `  http {
    url    = "http://127.0.0.1:9/never"
    method = "POST"
    body   = jsonencode([for x in param.list : format("%-${param.width}s", x)])
  }`))
	r := loadSource(t, src.String())

	check := func(t *testing.T, tool string, args map[string]any, want []string, maxTime time.Duration, maxAlloc uint64) {
		res, took, alloc := callMeasured(t, r, tool, args)
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError {
			t.Fatalf("result is not an error (%d bytes)", len(text))
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("error = %q, want it to contain %q", text, w)
			}
		}
		if len(text) > 1000 {
			t.Errorf("error has %d bytes, want a short one", len(text))
		}
		if maxTime == 0 {
			maxTime = 2 * time.Second
		}
		if took > hangBound(maxTime) {
			t.Errorf("the call took %s, want at most %s", took, hangBound(maxTime))
		}
		if maxAlloc == 0 {
			maxAlloc = 64
		}
		if alloc > maxAlloc<<20 && !raceEnabled {
			t.Errorf("the call allocated %d MiB, want at most %d", alloc>>20, maxAlloc)
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			check(t, tc.name, tc.args, tc.want, tc.maxTime, tc.maxAlloc)
		})
	}
	t.Run("exec_argument", func(t *testing.T) {
		check(t, "exec_argument", map[string]any{"fmt": "%100000000s"}, []string{"format() would build 100000001 bytes, more than the 16777216 a value may have"}, 0, 0)
	})
	for _, tool := range []string{"exec_loop", "http_loop"} {
		t.Run(tool, func(t *testing.T) {
			a := map[string]any{"list": make([]string, 100), "width": "5000000"}
			// format allocates a few times what it returns, and the
			// total bounds what it returns (without it, gigabytes).
			check(t, tool, a, []string{"format() would bring what the expression built to", "more than the 33554432 it may build in all"}, 0, 160)
		})
	}
	t.Run("exec_stdin", func(t *testing.T) {
		a := map[string]any{"text": strings.Repeat("a", 40000), "find": "a", "repl": strings.Repeat("b", 1000)}
		check(t, "exec_stdin", a, []string{"replace() would build 40000000 bytes, more than the 16777216"}, 0, 0)
	})
}

// TestTemplateLargeOutputUnderCap: a template that renders a lot, from
// functions and for expressions, works while it stays under max_output.
func TestTemplateLargeOutputUnderCap(t *testing.T) {
	src := templateLimitText("rows", `join("\n", [for i in range(param.n) : format("%-8d%s", i, param.text)])`, "") +
		templateLimitText("tripled", `replace(param.text, "a", "aaa")`, "max_output = 4194304") +
		templateLimitText("padded", `format("%-${param.width}s|", param.text)`, "")
	r := loadSource(t, src)
	cases := []struct {
		tool string
		args map[string]any
		size int
	}{
		{"rows", map[string]any{"n": 1000, "text": strings.Repeat("r", 500)}, 1000*508 + 999},
		{"tripled", map[string]any{"text": strings.Repeat("a", 1<<20)}, 3 << 20},
		{"padded", map[string]any{"width": "1000000", "text": "p"}, 1000001},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			res, _, _ := callMeasured(t, r, tc.tool, tc.args)
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError {
				t.Fatalf("error: %s", text)
			}
			if len(text) != tc.size {
				t.Errorf("rendered %d bytes, want %d", len(text), tc.size)
			}
		})
	}
}

// TestTemplateLongLoopIsFast: a loop over a long list, a long decoded JSON
// array or a long array in a parameter of type any, joined, renders in a
// time that grows with its length, not its square (cty converts a tuple
// to a list in quadratic time: the loop's tuple and the arrays are lists
// first). The tools' timeout is a minute, so that a loaded machine does
// not stop them: a quadratic render of these lengths takes far longer.
func TestTemplateLongLoopIsFast(t *testing.T) {
	r := loadSource(t, templateLimitText("lines", `join("\n", [for l in split("\n", param.text) : "> ${l}"])`, "max_output = 4194304\n    timeout = \"1m\"")+
		templateLimitText("chars", `join(",", [for c in split("", param.text) : c])`, "max_output = 4194304\n    timeout = \"1m\"")+
		templateLimitText("decoded", `join(",", jsondecode(param.text))`, "max_output = 4194304\n    timeout = \"1m\"")+`
tool "anything" {
  param "items" {
    type = any
  }
  template {
    text       = join(",", param.items)
    max_output = 4194304
    timeout    = "1m"
  }
}
`)
	// Within MaxArgValues, which arguments may hold.
	items := make([]string, 60000)
	for i := range items {
		items[i] = "i"
	}
	cases := []struct {
		tool, text string
		size       int
	}{
		{"lines", strings.Repeat("x\n", 100000) + "x", 100001*3 + 100000},
		{"chars", strings.Repeat("c", 100000), 100000 + 99999},
		{"decoded", "[" + strings.Repeat(`"d",`, 99999) + `"d"]`, 100000 + 99999},
		// An array in a parameter of type any.
		{"anything", "", 60000 + 59999},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			args := map[string]any{"text": tc.text}
			if tc.tool == "anything" {
				args = map[string]any{"items": items}
			}
			res, took, _ := callMeasured(t, r, tc.tool, args)
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError {
				t.Fatalf("error: %s", text)
			}
			if len(text) != tc.size {
				t.Errorf("rendered %d bytes, want %d", len(text), tc.size)
			}
			if took > hangBound(2*time.Second) {
				t.Errorf("took %s, want at most %s", took, hangBound(2*time.Second))
			}
		})
	}
}

// TestResultAndPromptLoopsHeld: a result's content item that loops over
// the caller's values is held as exec and http blocks are: 16 MiB a value,
// 32 MiB in all; a prompt's message as a template with the default
// max_output is: 1 MiB a value, the iterations and a deadline.
func TestResultAndPromptLoopsHeld(t *testing.T) {
	src := templateLimitTool("result_loop", `  template { text = "{}" }
  result {
    text {
      text = join(",", [for x in param.list : format("%-${param.width}s", x)])
    }
  }`) + `
prompt "widths" {
  arg "text" {}
  arg "width" {}
  message "user" {
    text = join(",", [for c in split("", arg.text) : format("%-${arg.width}s", c)])
  }
}

prompt "pairs" {
  arg "text" {}
  message "user" {
    text = tostring(length([for a in split("", arg.text) : length([for b in split("", arg.text) : b])]))
  }
}
`
	r := loadSource(t, src)
	t.Run("result", func(t *testing.T) {
		res, took, alloc := callMeasured(t, r, "result_loop", map[string]any{"list": make([]string, 100), "width": "5000000"})
		text := res.Content[0].(*mcp.TextContent).Text
		// The total stops it; on a loaded machine the deadline may come
		// first, which holds it as well (the allocations say whether it
		// was held in time).
		held := strings.Contains(text, "more than the 33554432 it may build in all") || strings.Contains(text, "ran past its time limit")
		if !res.IsError || !held || len(text) > 1000 {
			t.Errorf("result = %q (isError %v), want a short error naming the total", text, res.IsError)
		}
		if took > hangBound(2*time.Second) || alloc > 160<<20 && !raceEnabled {
			t.Errorf("took %s and allocated %d MiB", took, alloc>>20)
		}
	})
	cases := []struct {
		prompt string
		args   map[string]string
		want   string
	}{
		{"widths", map[string]string{"text": strings.Repeat("p", 100), "width": "5000000"}, "more than the 1048576 a value may have"},
		{"pairs", map[string]string{"text": strings.Repeat("q", 2000)}, "more than the 262144 allowed"},
	}
	for _, tc := range cases {
		t.Run(tc.prompt, func(t *testing.T) {
			start := time.Now()
			_, err := r.GetPrompt(context.Background(), tc.prompt, tc.args)
			// Under the race detector an iteration costs several times
			// more, and on a loaded machine the deadline may come before
			// the 262,144th: either limit holds the prompt.
			held := err != nil && (strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "did not finish within"))
			if !held || len(err.Error()) > 1000 {
				t.Errorf("error = %v, want a short one containing %q", err, tc.want)
			}
			if took := time.Since(start); took > hangBound(2*time.Second) {
				t.Errorf("took %s", took)
			}
		})
	}
}

package host

// Benchmarks of the per-call hot paths: argument validation, expression
// evaluation, gjson extraction, result conversion, a whole template call
// (toolhost's own work, without the transport) and a whole call through the
// stdio transport and the SDK. They are not timed tests: CI runs them with
// -benchtime=1x only to keep them compiling and working. bench/driver
// measures the same paths from outside, against baselines; BENCHMARKS.md
// has the figures.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/tidwall/gjson"
	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"

	"github.com/toolhost/toolhost/internal/logtext"
	"github.com/toolhost/toolhost/internal/testconfig"
)

const benchConfig = `
tool "say_hello" {
  description = "Returns a friendly greeting"
  param "name" {
    type        = string
    description = "The name to greet"
  }
  template {
    text = "hello ${param.name}"
  }
}

tool "constrained" {
  description = "Every kind of constraint"
  param "filename" {
    type    = string
    pattern = "^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$"
  }
  param "limit" {
    type    = integer
    default = 10
    minimum = 1
    maximum = 50
  }
  param "unit" {
    type    = string
    enum    = ["celsius", "fahrenheit"]
    default = "celsius"
  }
  param "items" {
    type = list(object({ title = string, score = optional(number) }))
    max_items = 100
  }
  template {
    text = "${param.filename} ${param.limit} ${param.unit} ${length(param.items)}"
  }
}

tool "schema2020" {
  description = "An input_schema with composition, conditionals and references"
  input_schema = {
    "$schema" = "https://json-schema.org/draft/2020-12/schema"
    type      = "object"
    "$defs" = {
      address = { "$anchor" = "addressDef", type = "object", properties = { city = { type = "string", minLength = 1 } }, required = ["city"] }
    }
    properties = {
      name          = { type = "string" }
      address       = { "$ref" = "#addressDef" }
      contactMethod = { type = "string", enum = ["phone", "email"] }
      phone         = { type = "string" }
      email         = { type = "string" }
    }
    allOf = [{ anyOf = [{ required = ["phone"] }, { required = ["email"] }] }]
    if    = { properties = { contactMethod = { const = "phone" } }, required = ["contactMethod"] }
    then  = { required = ["phone"] }
    else  = { required = ["email"] }
    additionalProperties = false
  }
  template {
    text = "${param.name} ${param.phone} ${param.address.city}"
  }
}

tool "hotlist" {
  param "limit" {
    type    = integer
    default = 10
    minimum = 1
    maximum = 50
  }
  template {
    text = "{}"
  }
  result {
    field "updated_at" {
      path = "update_time"
      type = string
    }
    field "topics" {
      path = "data.#(index<=${param.limit})#.{title,hot,url,index}"
      type = list(object({ title = string, hot = string, url = string, index = number }))
    }
  }
}

tool "big" {
  template {
    text = "{}"
  }
  result {
    field "count" {
      path = "items.#"
      type = integer
    }
    field "top" {
      path = "items.#(score==999)#.{id,name}"
      type = list(object({ id = integer, name = string }))
    }
  }
}
`

const constrainedArgs = `{"filename":"notes.txt","limit":20,"unit":"fahrenheit","items":[{"title":"a","score":1.5},{"title":"b"},{"title":"c","score":3}]}`

// schema2020Args are arguments the schema2020 tool accepts: its if, then,
// allOf and $ref all apply.
const schema2020Args = `{"name":"Ann","contactMethod":"phone","phone":"555","address":{"city":"Paris"}}`

func benchRegistry(b *testing.B) *Registry {
	b.Helper()
	path := filepath.Join(b.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, []byte(benchConfig), 0o644); err != nil {
		b.Fatal(err)
	}
	r, diags := Load([]string{path}, nil)
	if diags.HasErrors() {
		b.Fatal(thcl.FormatDiagnostics(diags))
	}
	b.Cleanup(func() { _ = r.Close() })
	return r
}

func benchTool(b *testing.B, r *Registry, name string) *thcl.Tool {
	b.Helper()
	t, ok := r.Tool(name)
	if !ok {
		b.Fatalf("no tool %q", name)
	}
	return t
}

// BenchmarkDecodeArgs is argument validation: JSON arguments checked
// against the parameters and converted to cty.
func BenchmarkDecodeArgs(b *testing.B) {
	r := benchRegistry(b)
	for _, c := range []struct{ tool, args string }{
		{"say_hello", `{"name":"world"}`},
		{"constrained", constrainedArgs},
		{"schema2020", schema2020Args},
	} {
		t := benchTool(b, r, c.tool)
		b.Run(c.tool, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeArgs(t, json.RawMessage(c.args)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTemplateRender is expression evaluation: the template backend
// rendering its text from decoded arguments.
func BenchmarkTemplateRender(b *testing.B) {
	r := benchRegistry(b)
	for _, c := range []struct{ tool, args string }{
		{"say_hello", `{"name":"world"}`},
		{"constrained", constrainedArgs},
	} {
		t := benchTool(b, r, c.tool)
		params, err := DecodeArgs(t, json.RawMessage(c.args))
		if err != nil {
			b.Fatal(err)
		}
		in := &adapters.Input{Eval: &hcl.EvalContext{Functions: r.functions.Functions, Variables: map[string]cty.Value{"param": params}}}
		b.Run(c.tool, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := t.Backend.Call(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCallTool is toolhost's own work for one call, without the
// transport and the SDK: validation, evaluation and the result.
func BenchmarkCallTool(b *testing.B) {
	r := benchRegistry(b)
	// Each call's record at info, as serve writes it, to nowhere.
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(logtext.New(io.Discard, nil)))
	for _, c := range []struct{ tool, args string }{
		{"say_hello", `{"name":"world"}`},
		{"constrained", constrainedArgs},
		{"schema2020", schema2020Args},
	} {
		b.Run(c.tool, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				res, err := r.CallTool(ctx, c.tool, json.RawMessage(c.args))
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}

// BenchmarkMapResult is a result block applied to a backend's JSON: gjson
// extraction, conversion to the declared types and the JSON of the
// structured content.
func BenchmarkMapResult(b *testing.B) {
	r := benchRegistry(b)
	hot := benchTool(b, r, "hotlist")
	params, err := DecodeArgs(hot, json.RawMessage(`{"limit":3}`))
	if err != nil {
		b.Fatal(err)
	}
	eval := &hcl.EvalContext{Functions: r.functions.Functions, Variables: map[string]cty.Value{"param": params}}
	b.Run("hotlist", func(b *testing.B) {
		body := []byte(hotlistBody)
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := MapResult(hot.Result, body, eval); err != nil {
				b.Fatal(err)
			}
		}
	})
	big := benchTool(b, r, "big")
	body := bigDocument(10_000_000)
	eval = &hcl.EvalContext{Functions: r.functions.Functions, Variables: map[string]cty.Value{"param": cty.EmptyObjectVal}}
	b.Run("10MB", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := MapResult(big.Result, body, eval); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGJSON is the extraction alone, for comparison with MapResult:
// validation of the body and the two paths of the big tool.
func BenchmarkGJSON(b *testing.B) {
	body := bigDocument(10_000_000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if !gjson.ValidBytes(body) {
			b.Fatal("invalid")
		}
		_ = gjson.GetBytes(body, "items.#")
		_ = gjson.GetBytes(body, "items.#(score==999)#.{id,name}")
	}
}

// BenchmarkConvertJSON is result conversion alone: a JSON value converted to
// the declared type and back to JSON.
func BenchmarkConvertJSON(b *testing.B) {
	typ := &thcl.Type{Kind: thcl.KindList, Elem: &thcl.Type{
		Kind:      thcl.KindObject,
		Attrs:     map[string]*thcl.Type{"id": {Kind: thcl.KindInteger}, "name": {Kind: thcl.KindString}},
		AttrOrder: []string{"id", "name"},
	}}
	for _, n := range []int{1, 100} {
		var sb strings.Builder
		sb.WriteByte('[')
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"id":%d,"name":"item-%d","extra":true}`, i, i)
		}
		sb.WriteByte(']')
		raw := []byte(sb.String())
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ConvertJSON(typ, raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// bigDocument is a JSON document of about size bytes, as bench/driver
// serves for its large-body case.
func bigDocument(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 256)
	b.WriteString(`{"source":"toolhost-bench","items":[`)
	for i := 0; b.Len() < size-200; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item-%d","score":%d,"tags":["alpha","beta"],"text":"Lorem ipsum dolor sit amet, consectetur adipiscing elit %d."}`, i, i, i%1000, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// BenchmarkServeStdio is one whole call as a client sees it, in process:
// the stdio transport over OS pipes, the SDK and the template tool, with
// 1, 8 and 64 requests in flight; and as a 2026-07-28 client calls, with
// no initialize and the version and capabilities in each call's _meta. It
// reports the goroutines left over after the calls (0 when nothing leaks).
func BenchmarkServeStdio(b *testing.B) {
	for _, inflight := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("inflight=%d", inflight), func(b *testing.B) { benchServeStdio(b, inflight) })
	}
	for _, inflight := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("2026-07-28/inflight=%d", inflight), func(b *testing.B) { benchServeStdioAs(b, true, inflight) })
	}
}

// benchServeStdio is BenchmarkServeStdio with inflight requests in flight,
// of a server made with opts, from a 2025-06-18 client.
func benchServeStdio(b *testing.B, inflight int, opts ...ServerOption) {
	benchServeStdioAs(b, false, inflight, opts...)
}

// benchServeStdioAs is benchServeStdio from a 2026-07-28 client when
// newProtocol is set.
func benchServeStdioAs(b *testing.B, newProtocol bool, inflight int, opts ...ServerOption) {
	r := benchRegistry(b)
	srv := NewServer(r, slog.New(slog.NewTextHandler(io.Discard, nil)), opts...)
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runDone := make(chan error, 1)
	go func() {
		// Tasks as ServeStdio sets it, and so with the direct call path.
		runDone <- srv.Run(ctx, &StdioTransport{In: inR, Out: outW, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Tasks: srv})
		outW.Close()
	}()
	lines := make(chan []byte, 1024)
	go func() {
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				lines <- line
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	next := func() []byte {
		select {
		case l, ok := <-lines:
			if !ok {
				b.Fatal("the server closed its output")
			}
			return l
		case <-time.After(10 * time.Second):
			b.Fatal("no response within 10s")
		}
		return nil
	}
	write := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			b.Fatal(err)
		}
	}
	meta := ""
	if newProtocol {
		meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	} else {
		write(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
		next()
		write(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	id := 1
	call := func() {
		write(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"world"}` + meta + `}}`)
		id++
	}
	check := func(l []byte) {
		if !bytes.Contains(l, []byte("hello world")) {
			b.Fatalf("unexpected response: %s", l)
		}
	}
	// Warm up, then count goroutines at rest, once the GC ballast
	// is made (see Server.Run: after ballastAfterRequests requests).
	for i := 0; i < ballastAfterRequests+100; i++ {
		call()
		check(next())
	}
	time.Sleep(50 * time.Millisecond)
	before := runtime.NumGoroutine()

	b.ReportAllocs()
	b.ResetTimer()
	sent, done := 0, 0
	for sent < inflight && sent < b.N {
		call()
		sent++
	}
	for done < b.N {
		check(next())
		done++
		if sent < b.N {
			call()
			sent++
		}
	}
	b.StopTimer()
	time.Sleep(20 * time.Millisecond)
	b.ReportMetric(float64(runtime.NumGoroutine()-before), "goroutines-leaked")
	inW.Close()
	select {
	case <-runDone:
	case <-time.After(10 * time.Second):
		b.Fatal("the server did not stop after its input closed")
	}
	inR.Close()
	outR.Close()
}

// BenchmarkStartup is what serve does before it answers initialize: load
// and compile a config of 1, 100 or 1,000 tools and register them with the
// SDK.
func BenchmarkStartup(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			path := writeBenchConfig(b, b.TempDir(), testconfig.Tools(n, "a"))
			logger := slog.New(slog.NewTextHandler(io.Discard, nil))
			b.ReportAllocs()
			for b.Loop() {
				reg, diags := Load([]string{path}, nil)
				if diags.HasErrors() {
					b.Fatal(diags)
				}
				_ = NewServer(reg, logger)
				reg.Close()
			}
		})
	}
}

// BenchmarkApply is the registration of a compiled config with the SDK, as
// at startup.
func BenchmarkApply(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			path := writeBenchConfig(b, b.TempDir(), testconfig.Tools(n, "a"))
			reg, diags := Load([]string{path}, nil)
			if diags.HasErrors() {
				b.Fatal(diags)
			}
			defer reg.Close()
			logger := slog.New(slog.NewTextHandler(io.Discard, nil))
			b.ReportAllocs()
			for b.Loop() {
				_ = NewServer(reg, logger)
			}
		})
	}
}

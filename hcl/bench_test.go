package hcl

// Benchmarks of what a load of a large config costs, phase by phase, and of
// the JSON encoding of values. Not timed tests: CI runs them with
// -benchtime=1x. BENCHMARKS.md has the figures.

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// BenchmarkLoadPhases splits a load of 1,000 tools into the HCL parse (the
// lexer dominates it) and the whole load (parse, decode, compile, schemas).
func BenchmarkLoadPhases(b *testing.B) {
	src := []byte(testconfig.Tools(1000, ""))
	path := filepath.Join(b.TempDir(), "tools.hcl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			if _, diags := parseFile(path, src); diags.HasErrors() {
				b.Fatal(diags)
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			cfg, diags := Load([]string{path}, nil)
			if diags.HasErrors() {
				b.Fatal(diags)
			}
			for _, t := range cfg.Tools {
				_ = t.Backend.Close()
			}
		}
	})
}

// BenchmarkEncodeJSON is a result value encoded for a client.
func BenchmarkEncodeJSON(b *testing.B) {
	typ := &Type{Kind: KindList, Elem: &Type{
		Kind:      KindObject,
		Attrs:     map[string]*Type{"id": {Kind: KindInteger}, "name": {Kind: KindString}, "score": {Kind: KindNumber}},
		AttrOrder: []string{"id", "name", "score"},
		Optional:  map[string]bool{"score": true},
	}}
	elems := make([]cty.Value, 100)
	for i := range elems {
		score := cty.NullVal(cty.Number)
		if i%2 == 0 {
			f, _, _ := big.ParseFloat(fmt.Sprintf("%d.5", i), 10, 512, big.ToNearestEven)
			score = cty.NumberVal(f)
		}
		elems[i] = cty.ObjectVal(map[string]cty.Value{
			"id":    cty.NumberIntVal(int64(i)),
			"name":  cty.StringVal(fmt.Sprintf("item <%d>", i)),
			"score": score,
		})
	}
	v := cty.ListVal(elems)
	b.ReportAllocs()
	for b.Loop() {
		_ = EncodeJSON(typ, v)
	}
}

// BenchmarkLoadExamples is the load of examples/tools.hcl that every
// `toolhost serve examples/tools.hcl` does before it answers: the HCL
// parse alone, then the whole load. Their difference is toolhost's decode,
// checks and compile.
func BenchmarkLoadExamples(b *testing.B) {
	path := filepath.Join("..", "examples", "tools.hcl")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			if _, diags := parseFile(path, src); diags.HasErrors() {
				b.Fatal(diags)
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			cfg, diags := Load([]string{path}, nil)
			if diags.HasErrors() {
				b.Fatal(diags)
			}
			for _, t := range cfg.Tools {
				_ = t.Backend.Close()
			}
		}
	})
}

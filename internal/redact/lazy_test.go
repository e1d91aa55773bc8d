package redact

import (
	"regexp"
	"testing"
)

// TestPatternsCompile compiles every pattern the package compiles on
// first use, each with at least one group, which their users read.
func TestPatternsCompile(t *testing.T) {
	var all []*lazyRe
	for _, kv := range keyValueRes {
		all = append(all, kv.re)
	}
	for _, f := range secretFormats {
		all = append(all, f.re)
	}
	for _, l := range all {
		t.Run(l.pattern, func(t *testing.T) {
			re, err := regexp.Compile(l.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if re.NumSubexp() < 1 || l.get().String() != l.pattern {
				t.Errorf("%d groups, compiled %q", re.NumSubexp(), l.get())
			}
		})
	}
}

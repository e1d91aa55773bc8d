// Package testconfig is what the tests of several packages share: configs
// for benchmarks and tests (large, realistic configs that would be unwieldy
// as files in testdata/), the process ids a test's commands report (Pids),
// made-up secrets for the tests of redaction, and the small programs a test
// binary runs as for the exec tools of tests (RunProgram).
package testconfig

import (
	"fmt"
	"strings"
)

// Tools returns a config of n template tools, each with two constrained
// parameters, like a large real config. variant, when not empty, goes into
// every description, so that two variants differ in every tool (a reload
// that changes all of them).
func Tools(n int, variant string) string {
	var b strings.Builder
	b.Grow(n * 330)
	tag := ""
	if variant != "" {
		tag = " (" + variant + ")"
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `tool "tool_%d" {
  description = "Generated tool %d%s"
  param "name" {
    type        = string
    description = "A name"
    max_length  = 100
  }
  param "count" {
    type    = integer
    default = 1
    minimum = 0
    maximum = 1000
  }
  template { text = "tool %d says hello ${param.name} x${param.count}" }
}
`, i, i, tag, i)
	}
	return b.String()
}

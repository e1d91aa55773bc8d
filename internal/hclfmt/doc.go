// Package hclfmt lays HCL native-syntax files out in HCL's canonical style
// for toolhost fmt. It is hclwrite's formatter (github.com/hashicorp/hcl/v2
// v2.25.0, MPL-2.0, as its files say), copied without the rest of
// hclwrite; and Quote, hclwrite's quoting of a string value, written
// anew, for toolhost import.
//
// Why a copy: importing hclwrite links github.com/google/go-cmp into the
// binary for one cmp.Equal in hclwrite's node.go, and go-cmp's package
// initialisation (regular expressions compiled at init) runs on every
// start of every command, serve included, whether fmt runs or not. Without
// it, a cold start of toolhost serve on examples/tools.hcl is faster;
// BENCHMARKS.md has by how much. The differential test and fuzz target
// in this package check that Format and Quote return exactly what
// hclwrite returns, so an upgrade of HCL that changes the canonical style
// or the quoting shows up as a failing test, and this package is then
// brought in line with the new version.
package hclfmt

// Package hclfmt lays HCL native-syntax files out in HCL's canonical
// style, for toolhost fmt and toolhost import, and quotes strings for the
// files import writes.
//
// Format gives what hclwrite.Format gives (the tests compare the two on
// every .hcl file of the module and under fuzzing), without linking
// hclwrite: hclwrite imports go-cmp, whose package initialisation every
// start of toolhost would pay (BENCHMARKS.md, "Round ten").
package hclfmt

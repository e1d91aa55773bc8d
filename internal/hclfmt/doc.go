// Package hclfmt lays HCL native-syntax files out in HCL's canonical style
// for toolhost fmt and toolhost import: hclwrite's formatter, behind one
// name both use.
package hclfmt

package hclfmt

import "github.com/hashicorp/hcl/v2/hclwrite"

// Format returns src laid out in HCL's canonical style, as terraform fmt
// and hclwrite lay it out; src with syntax errors is laid out on a best
// effort.
func Format(src []byte) []byte { return hclwrite.Format(src) }

//go:build !go1.27

package hclfmt

import "github.com/apparentlymart/go-textseg/v15/textseg"

// scanClusters splits text into grapheme clusters by the Unicode version
// HCL's own column counting uses with this Go.
var scanClusters = textseg.ScanGraphemeClusters

// Copyright IBM Corp. 2014, 2026
// SPDX-License-Identifier: MPL-2.0

// From internal/unicodeutil of github.com/hashicorp/hcl/v2 v2.25.0: the
// same text segmentation as HCL's for each Go version.

//go:build go1.27

package hclfmt

import (
	v17 "github.com/apparentlymart/go-textseg/v17/textseg"
)

func scanGraphemeClusters(data []byte, atEOF bool) (int, []byte, error) {
	return v17.ScanGraphemeClusters(data, atEOF)
}

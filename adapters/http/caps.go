package http

import "github.com/toolhost/toolhost/adapters"

// SizeCapSetting names the setting that caps a response body.
func (h *HTTP) SizeCapSetting() string { return "max_response in its http block" }

// OutputName names what an http tool's output is.
func (h *HTTP) OutputName() string { return "the HTTP response body" }

// CallsNetwork reports that an http tool's calls go over the network:
// offline, it answers from its examples.
func (h *HTTP) CallsNetwork() bool { return true }

var (
	_ adapters.SizeCapper    = (*HTTP)(nil)
	_ adapters.OutputNamer   = (*HTTP)(nil)
	_ adapters.NetworkCaller = (*HTTP)(nil)
)

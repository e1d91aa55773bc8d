package adapters

// LevelReporter is a Reporter that can say whether a log line at a level
// would reach the client. A backend asks (see Wants) before it builds a
// line that costs something to make, such as a redacted request line at
// debug, which most clients never see.
type LevelReporter interface {
	Reporter
	// Wants reports whether a line at level (an MCP logging level) may
	// reach the client; true when it cannot tell.
	Wants(level string) bool
}

// Wants reports whether r would pass on a line at level: false when r is
// nil, true when r cannot tell (it is no LevelReporter).
func Wants(r Reporter, level string) bool {
	if r == nil {
		return false
	}
	if lr, ok := r.(LevelReporter); ok {
		return lr.Wants(level)
	}
	return true
}

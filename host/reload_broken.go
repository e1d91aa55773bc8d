package host

import thcl "github.com/toolhost/toolhost/hcl"

// primeBroken primes the Reloader of a server that serves a
// PlaceholderRegistry: the config has errors, which serve has logged and
// the server tells clients (SetNotice). The first reload that finds the
// same errors (Watch looks at once) says nothing of them again; any
// change of the files is loaded, since no sum of a valid config is in
// service to compare with.
func (r *Reloader) primeBroken(reg *Registry) {
	r.failed, r.primedBroken = true, true
	r.failedText = thcl.FormatDiagnostics(reg.placeholder.diags)
	r.missing = missingPaths(reg.placeholder.diags)
}

// failedNotice is what clients are told of a config with errors (text,
// one line each): never says no valid config has loaded, so that no tools
// are served; otherwise the last valid one stays in service.
func failedNotice(never bool, text string) string {
	if never {
		return "toolhost: the config has errors; no tools, resources or prompts are served until it is saved without them.\n" + text
	}
	return "toolhost: the config has errors; the previous tools stay in service.\n" + text
}

// failedLog is the log message of a reload that failed.
func failedLog(never bool) string {
	if never {
		return "reload failed; no tools are served until the config is valid"
	}
	return "reload failed; the previous tools stay in service"
}

// loadedLog is the log message of a reload applied: first says it is the
// first valid config, after a start with errors.
func loadedLog(first bool) string {
	if first {
		return "loaded config; it is valid now"
	}
	return "reloaded config"
}

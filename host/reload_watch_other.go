//go:build !windows

package host

// pathKey is path as watchPlan matches it: the path itself, as the config
// and fsnotify's events spell it alike here.
func pathKey(path string) string { return path }

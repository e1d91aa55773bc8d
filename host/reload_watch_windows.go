package host

import "strings"

// pathKey is path as watchPlan matches it. File names on Windows are the
// same in any case: a config given as C:\Tools\TOOLS.HCL is the file whose
// events fsnotify names C:\Tools\tools.hcl. While the file exists, its
// real name is known (filepath.EvalSymlinks); once it is deleted, to be
// written again, only the name given is, so the key is folded.
func pathKey(path string) string { return strings.ToLower(path) }

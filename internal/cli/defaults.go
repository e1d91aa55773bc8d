package cli

import (
	"fmt"
	"io"
	"os"
)

// defaultConfigOr returns paths, or, when there are none, the default
// config ./tools.hcl that serve, validate, read, prompt and inspect use. It
// reports false, having said on stderr what to do, when there is no
// default config either. example is the rest of the command line in the
// example of how to name a config, as in "URI" for read.
func defaultConfigOr(cmd string, paths []string, example string, stderr io.Writer) ([]string, bool) {
	if len(paths) > 0 {
		return paths, true
	}
	if _, err := os.Stat(defaultConfig); err == nil {
		return []string{defaultConfig}, true
	}
	wd, _ := os.Getwd()
	fmt.Fprintf(stderr, "toolhost %s: no config given, and there is no %s in the current directory (%s).\n", cmd, defaultConfig, wd)
	if cmd == "serve" {
		fmt.Fprintf(stderr, "Give the config's absolute path, as in: toolhost serve /path/to/tools.hcl (an editor starts servers in a directory of its own choosing), or let toolhost setup EDITOR path/to/tools.hcl write the editor's entry; or write a starter config with: toolhost init\n")
		return nil, false
	}
	if example != "" {
		example = " " + example
	}
	fmt.Fprintf(stderr, "Give the config's path, as in: toolhost %s path/to/tools.hcl%s (a directory of .hcl files is a config too); or write a starter config with: toolhost init\n", cmd, example)
	return nil, false
}

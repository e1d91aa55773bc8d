package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/files"
)

// starterConfig is what init writes: one tool of each backend, with an
// example block, and comments that point to the next step. Its exec tool
// runs a program every system of its kind has (starterExec, per platform).
// It validates with no diagnostics and is formatted as toolhost fmt
// formats.
const starterConfig = `# tools.hcl: tools for MCP clients, served over stdio by
#
#   toolhost serve tools.hcl
#
# Check it (as CI would) with  toolhost validate tools.hcl
# Try a tool without a client:  toolhost call tools.hcl greet name=world
# See what a client sees:       toolhost inspect tools.hcl
# Keep it tidy:                 toolhost fmt

server {
  name         = "my-tools"
  instructions = "Greetings, GitHub repository facts and ` + starterTopic + `."
}

# template: text computed from the arguments, with no I/O.
tool "greet" {
  description = "Greets someone by name."
  param "name" {
    type        = string
    description = "Who to greet."
    min_length  = 1
  }
  template {
    text = "Hello, ${param.name}!"
  }
  # Examples are tests that validate runs offline.
  example "world" {
    args   = { name = "world" }
    result = "Hello, world!"
  }
}

# http: calls an API; the result block picks typed fields out of the JSON
# answer with gjson paths, and becomes the tool's outputSchema.
tool "github_repo" {
  description = "Description, stars and forks of a public GitHub repository."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "owner" {
    type        = string
    description = "The repository's owner, such as golang."
    pattern     = "^[A-Za-z0-9-]+$"
  }
  param "repo" {
    type        = string
    description = "The repository's name, such as go."
    pattern     = "^[A-Za-z0-9._-]+$"
  }
  http {
    url     = "https://api.github.com/repos/${param.owner}/${param.repo}"
    headers = { Accept = "application/vnd.github+json" }
    timeout = "10s"
  }
  result {
    field "description" {
      path     = "description"
      type     = string
      optional = true
    }
    field "stars" {
      path = "stargazers_count"
      type = integer
    }
    field "forks" {
      path = "forks_count"
      type = integer
    }
  }
  # validate applies the result block to this recorded response, and the
  # result must be exactly this; no request is sent.
  example "go" {
    args     = { owner = "golang", repo = "go" }
    response = <<-EOT
      {"full_name": "golang/go", "description": "The Go programming language", "stargazers_count": 128000, "forks_count": 18000}
    EOT
    result   = { description = "The Go programming language", stars = 128000, forks = 18000 }
  }
  example "refused owner" {
    args  = { owner = "../etc", repo = "go" }
    error = "does not match the pattern"
  }
}

# exec: runs a program with an argument list, never through a shell; each
# element is one argument whatever it contains.
` + starterExec

func runInit(args []string, stdout, stderr io.Writer) int {
	flags := newFlags("init", "init [--sql] [DIR]", stderr)
	withSQL := flags.Bool("sql", false, "write a starter on a local SQLite database instead (tools.hcl and notes.db)")
	pos, err := parseFlags(flags, args)
	if err != nil {
		return parseExit(err)
	}
	if len(pos) > 1 {
		flags.Usage()
		return ExitUsage
	}
	dir := "."
	if len(pos) == 1 {
		dir = pos[0]
	}
	path := filepath.Join(dir, defaultConfig)
	// init DIR creates DIR (and its parents) when it is missing: the user
	// asked for the config to be there.
	created := ""
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintf(stderr, "toolhost init: cannot create the directory %s: %s\n", dir, files.Bare(err))
			return ExitFailure
		}
		created = fmt.Sprintf("Created the directory %s.\n", dir)
	}
	write, wrote := writeStarter, "one tool of each backend (template, http, exec)"
	if *withSQL {
		write, wrote = writeSQLStarter, "three sql tools on notes.db, a SQLite database beside it"
	}
	if err := write(path); err != nil {
		var pe *fs.PathError
		if errors.Is(err, fs.ErrExist) && errors.As(err, &pe) {
			fmt.Fprintf(stderr, "toolhost init: %s already exists; init never overwrites a file. Edit it, or move it away and run init again.\n", pe.Path)
		} else {
			fmt.Fprintf(stderr, "toolhost init: cannot create %s: %s\n", path, files.Bare(err))
		}
		return ExitFailure
	}
	fmt.Fprint(stdout, created)
	next := "greet name=world"
	if *withSQL {
		next = "search_notes text=milk"
	}
	fmt.Fprintf(stdout, "Wrote %s: %s.\nNext: toolhost validate %s, then toolhost call %s %s\n", path, wrote, path, path, next)
	// A directory given to toolhost stands for all its *.hcl files,
	// merged: the starter's server block and tools would meet the others'.
	if files, _ := thcl.ConfigFiles([]string{dir}); len(files) > 1 {
		var others []string
		for _, f := range files {
			if filepath.Base(f) != defaultConfig {
				others = append(others, filepath.Base(f))
			}
		}
		fmt.Fprintf(stdout, "Note: %s also holds %s. Give toolhost the file %s, as above: the directory stands for all its .hcl files, merged, and only one of them may have a server block.\n",
			dir, strings.Join(others, ", "), path)
	}
	return ExitOK
}

// writeStarter writes the starter config at path, which must not exist
// (the error is then fs.ErrExist).
func writeStarter(path string) error {
	return writeFileExcl(path, starterConfig)
}

// writeFileExcl writes text to a new file at path, which must not exist
// (the error is then fs.ErrExist).
func writeFileExcl(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Package docsnippets checks the fenced code blocks of README.md, of
// every Markdown file under docs/ and of the gallery's READMEs
// (examples/README.md and examples/*/README.md), so that the docs cannot
// show a config or a command that does not work. Its test runs the
// check over the repository; CI runs it with every other test.
//
// What each block's info string (the word after the opening fence) gets:
//
//   - hcl: a complete config, loaded by the loader `toolhost validate`
//     uses (host.Load) and its examples run offline; an error fails the
//     block, warnings do not. env() sees no variable set: a snippet that
//     needs one gives env() a default, or is a fragment.
//   - hcl marked fragment: a part of a config (a block, some attributes);
//     it must parse as an HCL body, nothing more.
//   - sh, shell, bash, console: each command of the block is parsed as a
//     shell command (in a console block, only the lines after a "$ "
//     prompt are commands). A command is run when, after any NAME=value
//     assignments, it is `toolhost` or `go run ./cmd/toolhost` with one
//     of the subcommands validate, fmt --check (or -check), inspect,
//     call, read, prompt, init or import openapi, or serve over stdio
//     with its stdin from a file (it ends at the file's end). It runs
//     the toolhost built from this repository, in a temporary directory
//     the block's commands share, into which the repository's files they
//     name are copied with their directories (so init, fmt and tools that
//     write leave the checkout alone), with NAME=value assignments in its
//     environment and a "< FILE" redirect as its stdin; call and serve
//     get --offline, so that http tools answer from their examples and no
//     check reaches the network. It must exit 0 (or 1, for a block marked
//     fails). Every other command (installs, go build and go test, editor
//     and curl commands, serve --listen, setup, bridge) is not run, and
//     the test logs each one it leaves, with why. The commands run on
//     unix only: the docs' commands are written for a unix shell.
//   - json, jsonc: one JSON value, comments and trailing commas allowed
//     (JSONC, as editors' config files are), or JSON Lines (one value a
//     line); a json block marked fragment is the members of an object
//     ("name": value, ...) and is parsed inside braces.
//   - Any other info string, or none (program output, grammars, protocol
//     traces, YAML, Dockerfiles), is not checked.
//
// Markers. An HTML comment on the line (or lines) right before a fence
// changes how its block is checked; markdown renders none of them:
//
//	<!-- snippet: fragment -->        hcl or json: a part, see above
//	<!-- snippet: skip REASON -->     not checked at all; REASON (required)
//	                                  says why, e.g. "elided with ..."
//	<!-- snippet: dir PATH -->        hcl: loaded as if the file sat in
//	                                  PATH (a directory relative to the
//	                                  repository root), so that file(),
//	                                  dir and file attributes resolve there
//	<!-- snippet: fails -->           sh/console: each command run must
//	                                  fail with exit status 1 (a block
//	                                  that shows an error)
//
// An unknown marker, or skip without a reason, is itself a problem.
package docsnippets

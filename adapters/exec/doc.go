// Package exec is the exec backend: a tool whose call runs a command, an
// argv list and never a shell, and returns its standard output.
//
// Compiling an exec block checks the command as it will be run: the
// program is found, every parameter lands in an argv element of its own,
// and a program that would read a parameter as code (a shell's -c, an
// interpreter's -e, a script built from an expression) is refused. A call
// runs the command in a process group of its own with a minimal
// environment, caps its output, reports its stderr as log lines and
// progress, and on a timeout, a cancellation or the host's exit stops the
// whole group: kill_signal first, SIGKILL after kill_timeout.
//
// The files are split by concern:
//   - exec.go: the Exec backend, its limits and its block's schema;
//     caps.go: the optional capabilities host finds on it.
//   - compile.go, compile_attrs.go: compiling a block, the command and
//     each of the other attributes.
//   - script.go, script_args.go, script_stdin.go, flags.go, progs.go,
//     load.go, load_table.go, variants.go: the checks that no parameter
//     becomes code (scripts, option syntax, programs that run others,
//     options that load code, each variant of a conditional command);
//     script_win.go: how Windows programs read their command line (batch
//     files, PowerShell's switches), on every platform.
//   - argv.go, env.go: building a call's argv, environment and standard
//     input, and finding its program.
//   - run.go: Call, stopping a command, and the live set of commands
//     that adapters.WaitCommands and adapters.KillCommands act on when the
//     host exits.
//   - output.go: pipes, the capped capture of output, stderr lines and
//     progress, charsets (charset_<os>.go: the default charset per
//     platform); secrets.go: what is hidden from messages.
//   - proc_<os>.go: the process group, per platform (on Windows, a job
//     object); env_<os>.go: the minimal environment, variable names and
//     how a program name becomes a file, per platform.
//
// A new platform provides, in proc_<os>.go, setProcessGroup, startGroup,
// endGroup, killGroup, signals, signalText, signalGroup, groupGone,
// exitDescription, notExecutable and prepareFds (see proc_unix.go, and
// proc_linux.go for setParentDeath and onlyZombies, which only unix
// needs), and in env_<os>.go defaultPath, minimalEnv, keepMinimal,
// envKey, hasDir, programPath and findProgram (see env_unix.go), and in
// charset_<os>.go defaultCharset.
package exec

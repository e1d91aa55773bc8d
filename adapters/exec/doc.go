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
// The files are split by concern: exec.go (the block and the call),
// exec_load.go, exec_script.go, exec_flags.go, exec_progs.go and
// exec_variants.go (the checks of the command), and exec_<os>.go (the
// process group, per platform).
package exec

package exec

import (
	"maps"
	"slices"
	"sync"
)

// loadFlag is an option whose value chooses code the program loads or
// runs: a module, a library, a directory modules are looked up in, a
// command, or a setting or file of settings that can name one.
type loadFlag struct {
	name string // as written: "-M", "--require", "-javaagent:"
	// glued: the value may be glued to the name (-MPOSIX, -javaagent:x),
	// after "=" for a long option (--require=x); next: the value may be
	// the next argument.
	glued, next bool
	// sub marks an option of a subcommand, found after it too: git's
	// --upload-pack comes after "ls-remote".
	sub bool
	// env marks an option whose value is NAME=VALUE, a variable the
	// program sets for the command it runs (systemd-run's --setenv): a
	// parameter may be the value of a variable that chooses no code.
	env bool
	// what completes "The option -M of perl ...", for the message.
	what string
}

// loader is a program some of whose options load or run code.
type loader struct {
	flags []loadFlag
	// subcommands are the options of one subcommand only, by its name:
	// git clone's -c, which is another option after git log.
	subcommands map[string][]loadFlag
	// interleaved is set for programs (or their subcommands) that take
	// options among their operands, up to a "--", as GNU tar's and git
	// log's do.
	interleaved bool
	// clusters is set for programs whose single-letter options may be
	// written together, the one that takes a value last: -wMstrict,
	// -Bm json.tool.
	clusters bool
	// values are the program's other options whose value is the next
	// argument, so that the value is not taken for its first operand.
	values []string
	// envOperands is set for programs whose operands NAME=VALUE, before
	// the command they run, are variables they set for it (sudo).
	envOperands bool
	example     string // a command that loads fixed code, for the fix
}

// Messages of the options that do the same.
const (
	loadsModule    = "loads the module it names"
	loadsBefore    = "loads the module it names before the program"
	runsCommand    = "runs the command it gives"
	runsProgram    = "runs the program it names"
	startsDebugger = "starts a debugger on the address it names, through which anyone who reaches it runs code"
)

// loaders are the programs whose options load or run code, by base
// name without ".exe", as for interpreters: interpreters' options
// that load a module, a library or a file of settings, and the options of
// common tools that name a program they run. Built at first use, as
// interpreters.
var loaders = sync.OnceValue(func() map[string]loader {
	m := interpreterLoaders()
	maps.Copy(m, toolLoaders())
	return m
})

// interpreterLoaders are the interpreters whose options load a
// module, a library, a startup file or a file of settings. It is long
// because it is a table, one entry per interpreter: split, the entries of
// one language would be apart.
func interpreterLoaders() map[string]loader {
	perl := loader{clusters: true,
		flags: []loadFlag{
			{name: "-M", glued: true, what: `loads the module it names, and runs its import with the arguments after "="`},
			{name: "-m", glued: true, what: loadsModule},
			{name: "-I", glued: true, next: true, what: "loads modules from the directory it names"},
			{name: "-d", glued: true, what: "loads the debugger module it names"},
		},
		example: `command = ["perl", "-MPOSIX", "-e", "print floor($ARGV[0])", param.x]`}
	python := loader{clusters: true,
		flags: []loadFlag{
			{name: "-m", glued: true, next: true, what: "runs the module it names"},
			{name: "-W", glued: true, next: true, what: "imports the module of the warning category it names"},
			{name: "-X", glued: true, next: true, what: "takes settings such as pycache_prefix, the directory compiled modules are read from"},
		},
		example: `command = ["python3", "-m", "json.tool", param.x]`}
	ruby := loader{clusters: true, values: []string{"-C", "-E"},
		flags: []loadFlag{
			{name: "-r", glued: true, next: true, what: "loads the library it names"},
			{name: "-I", glued: true, next: true, what: "loads libraries from the directory it names"},
		},
		example: `command = ["ruby", "-rjson", "-e", "puts JSON.generate(ARGV[0])", param.x]`}
	node := loader{
		flags: []loadFlag{
			{name: "-r", glued: true, next: true, what: loadsBefore},
			{name: "--require", glued: true, next: true, what: loadsBefore},
			{name: "--import", glued: true, next: true, what: loadsBefore},
			{name: "--preload", glued: true, next: true, what: loadsBefore},
			{name: "--loader", glued: true, next: true, what: "loads the module loader it names"},
			{name: "--experimental-loader", glued: true, next: true, what: "loads the module loader it names"},
			{name: "--env-file", glued: true, next: true, what: "reads variables, NODE_OPTIONS among them, from the file it names"},
			{name: "--env-file-if-exists", glued: true, next: true, what: "reads variables, NODE_OPTIONS among them, from the file it names"},
			{name: "--openssl-config", glued: true, next: true, what: "reads the OpenSSL configuration it names, which loads engines"},
			{name: "--snapshot-blob", glued: true, next: true, what: "starts from the snapshot it names, which is code"},
			{name: "--experimental-config-file", glued: true, next: true, what: "reads the configuration it names, which sets options such as --require"},
			{name: "--test-reporter", glued: true, next: true, what: "loads the reporter module it names"},
			{name: "--inspect", glued: true, what: startsDebugger},
			{name: "--inspect-brk", glued: true, what: startsDebugger},
			{name: "--inspect-wait", glued: true, what: startsDebugger},
		},
		example: `command = ["node", "--require", "./setup.js", "app.js", param.x]`}
	php := loader{values: []string{"-f", "-B", "-R", "-F", "-E"},
		flags: []loadFlag{
			{name: "-d", glued: true, next: true, what: "takes an ini setting such as auto_prepend_file, a file it runs first"},
			{name: "-c", glued: true, next: true, what: "reads the php.ini it names, whose settings name files it runs"},
			{name: "-z", glued: true, next: true, what: "loads the Zend extension it names"},
			{name: "--define", glued: true, next: true, what: "takes an ini setting such as auto_prepend_file, a file it runs first"},
			{name: "--php-ini", glued: true, next: true, what: "reads the php.ini it names, whose settings name files it runs"},
			{name: "--zend-extension", glued: true, next: true, what: "loads the Zend extension it names"},
		},
		example: `command = ["php", "-d", "memory_limit=256M", "script.php", param.x]`}
	lua := loader{
		flags:   []loadFlag{{name: "-l", glued: true, next: true, what: "loads the library it names"}},
		example: `command = ["lua", "-l", "cjson", "script.lua", param.x]`}
	// gawk loads extensions and source files; any awk reads its program
	// from the file -f names.
	awk := loader{values: []string{"-v", "-F", "--assign", "--field-separator", "-W"},
		flags: []loadFlag{
			{name: "-f", glued: true, next: true, what: "runs the program file it names"},
			{name: "--file", glued: true, next: true, what: "runs the program file it names"},
			{name: "-E", glued: true, next: true, what: "runs the program file it names"},
			{name: "--exec", glued: true, next: true, what: "runs the program file it names"},
			{name: "-i", glued: true, next: true, what: "loads the source file it names"},
			{name: "--include", glued: true, next: true, what: "loads the source file it names"},
			{name: "-l", glued: true, next: true, what: "loads the extension library it names"},
			{name: "--load", glued: true, next: true, what: "loads the extension library it names"},
		},
		example: `command = ["gawk", "-l", "ordchr", "-f", "report.awk", param.path]`}
	luajit := lua
	luajit.flags = append(slices.Clone(lua.flags), loadFlag{name: "-j", glued: true, next: true, what: "loads the jit module it names"})
	luajit.example = `command = ["luajit", "-l", "cjson", "script.lua", param.x]`
	deno := loader{
		flags: []loadFlag{
			{name: "--import-map", glued: true, next: true, sub: true, what: "reads the import map it names, which chooses the modules"},
			{name: "--config", glued: true, next: true, sub: true, what: "reads the configuration it names, which chooses the modules"},
			{name: "--preload", glued: true, next: true, sub: true, what: loadsBefore},
			{name: "--require", glued: true, next: true, sub: true, what: loadsBefore},
			{name: "--env-file", glued: true, next: true, sub: true, what: "reads variables from the file it names"},
		},
		example: `command = ["deno", "run", "--config", "deno.json", "main.ts", param.x]`}
	java := loader{values: []string{"--add-opens", "--add-exports", "--add-modules", "--add-reads"},
		flags: []loadFlag{
			{name: "-javaagent:", glued: true, what: "loads the agent it names"},
			{name: "-agentlib:", glued: true, what: "loads the native agent it names"},
			{name: "-agentpath:", glued: true, what: "loads the native agent it names"},
			{name: "-XX:", glued: true, what: "takes JVM settings such as OnError, a command it runs"},
			{name: "-Xbootclasspath", glued: true, what: "loads classes from the path it names"},
			{name: "-cp", next: true, what: "loads classes from the path it names"},
			{name: "-classpath", next: true, what: "loads classes from the path it names"},
			{name: "--class-path", glued: true, next: true, what: "loads classes from the path it names"},
			{name: "-p", next: true, what: "loads modules from the path it names"},
			{name: "--module-path", glued: true, next: true, what: "loads modules from the path it names"},
			{name: "--upgrade-module-path", glued: true, next: true, what: "loads modules from the path it names"},
			{name: "--patch-module", glued: true, next: true, what: "loads classes from the path it names"},
			{name: "-jar", next: true, what: "runs the archive it names"},
			{name: "-m", next: true, what: "runs the module it names"},
			{name: "--module", glued: true, next: true, what: "runs the module it names"},
			{name: "@", glued: true, what: "reads options from the file it names"},
		},
		example: `command = ["java", "-cp", "app.jar", "app.Main", param.x]`}
	bash := loader{values: []string{"-o", "+o", "-O", "+O"},
		flags: []loadFlag{
			{name: "--rcfile", next: true, what: "runs the startup file it names"},
			{name: "--init-file", next: true, what: "runs the startup file it names"},
		},
		example: `command = ["bash", "--norc", "-c", "echo \"$1\"", "bash", param.x]`}
	// ssh's settings run commands (ProxyCommand, LocalCommand,
	// KnownHostsCommand), and so do the transports of scp, sftp and rsync.
	m := map[string]loader{"perl": perl, "ruby": ruby, "php": php, "lua": lua, "luajit": luajit,
		"deno": deno, "java": java, "bash": bash, "rbash": bash}
	for _, n := range []string{"python", "python2", "python3", "pypy", "pypy3"} {
		m[n] = python
	}
	for _, n := range []string{"node", "nodejs", "bun"} {
		m[n] = node
	}
	for _, n := range []string{"awk", "gawk", "mawk", "nawk", "original-awk"} {
		m[n] = awk
	}
	return m
}

// toolLoaders are the common tools whose options name a program they
// run, or a file of settings that does. It is long because it is a table,
// one entry per tool.
func toolLoaders() map[string]loader {
	gitSetting := "takes a setting such as core.pager, core.sshCommand or an alias, which runs a program"
	git := loader{values: []string{"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"},
		flags: []loadFlag{
			{name: "-c", next: true, what: gitSetting},
			{name: "--config-env", glued: true, next: true, what: gitSetting},
			{name: "--exec-path", glued: true, what: "runs git's commands from the directory it names"},
			{name: "--upload-pack", glued: true, next: true, sub: true, what: runsProgram},
			{name: "--receive-pack", glued: true, next: true, sub: true, what: runsProgram},
			{name: "--exec", glued: true, next: true, sub: true, what: runsCommand},
			{name: "--extcmd", glued: true, next: true, sub: true, what: runsCommand},
			{name: "--open-files-in-pager", glued: true, sub: true, what: runsProgram},
			{name: "--template", glued: true, next: true, sub: true, what: "copies hooks, which run, from the directory it names"},
			{name: "--config", glued: true, next: true, sub: true, what: gitSetting},
		},
		subcommands: map[string][]loadFlag{
			"clone":     {{name: "-c", glued: true, next: true, what: gitSetting}, {name: "-u", glued: true, next: true, what: runsProgram}},
			"ls-remote": {{name: "-u", glued: true, next: true, what: runsProgram}},
			"rebase":    {{name: "-x", glued: true, next: true, what: runsCommand}},
			"difftool":  {{name: "-x", glued: true, next: true, what: runsCommand}, {name: "-t", glued: true, next: true, what: "runs the diff tool it names"}, {name: "--tool", glued: true, next: true, what: "runs the diff tool it names"}},
			"mergetool": {{name: "-t", glued: true, next: true, what: "runs the merge tool it names"}, {name: "--tool", glued: true, next: true, what: "runs the merge tool it names"}},
			"grep":      {{name: "-O", glued: true, what: runsProgram}},
			"submodule": {{name: "foreach", next: true, what: "runs the shell command it gives in each submodule"}},
			"bisect":    {{name: "run", next: true, what: runsProgram}},
		},
		interleaved: true,
		example:     `command = ["git", "-c", "core.quotePath=false", "log", "--end-of-options", param.rev]`}
	sshFlags := []loadFlag{
		{name: "-o", glued: true, next: true, what: "takes a setting such as ProxyCommand, a command it runs"},
		{name: "-F", glued: true, next: true, what: "reads the configuration it names, whose settings run commands"},
		{name: "-I", glued: true, next: true, what: "loads the PKCS#11 library it names"},
	}
	ssh := loader{clusters: true, flags: sshFlags,
		values:  []string{"-b", "-c", "-D", "-E", "-e", "-i", "-L", "-l", "-m", "-O", "-p", "-Q", "-R", "-S", "-W", "-w", "-B", "-J"},
		example: `command = ["ssh", "-o", "BatchMode=yes", "host.example", "uptime"]`}
	// scp and sftp run ssh, or the program -S names, and sftp -D runs
	// its server.
	sshClient := loader{clusters: true,
		flags: append(slices.Clone(sshFlags),
			loadFlag{name: "-S", glued: true, next: true, what: runsProgram},
			loadFlag{name: "-D", glued: true, next: true, what: runsProgram}),
		values:  []string{"-c", "-i", "-l", "-P", "-J", "-X", "-B", "-b", "-R", "-s"},
		example: `command = ["scp", "-o", "BatchMode=yes", "--", param.file, "backup.example:"]`}
	rsync := loader{interleaved: true, clusters: true,

		flags: []loadFlag{
			{name: "-e", glued: true, next: true, what: "runs the remote shell it gives"},
			{name: "--rsh", glued: true, next: true, what: "runs the remote shell it gives"},
			{name: "--rsync-path", glued: true, next: true, what: "runs the program it names on the remote side"},
		},
		example: `command = ["rsync", "-a", "--", "src/", param.dest]`}
	tar := loader{interleaved: true, clusters: true,

		flags: []loadFlag{
			{name: "--to-command", glued: true, next: true, what: runsCommand},
			{name: "--use-compress-program", glued: true, next: true, what: runsProgram},
			{name: "-I", glued: true, next: true, what: runsProgram},
			{name: "--checkpoint-action", glued: true, next: true, what: "runs the command of an exec= action"},
			{name: "--info-script", glued: true, next: true, what: "runs the script it names"},
			{name: "--new-volume-script", glued: true, next: true, what: "runs the script it names"},
			{name: "-F", glued: true, next: true, what: "runs the script it names"},
			{name: "--rsh-command", glued: true, next: true, what: runsProgram},
		},
		example: `command = ["tar", "-xzf", "archive.tar.gz", "--", param.path]`}
	// A container's variables choose the code that runs in it as the
	// host's do, and docker's config names credential helpers it runs.
	containerFlags := []loadFlag{
		{name: "-e", glued: true, next: true, env: true, what: "sets the variable it gives in the container"},
		{name: "--env", glued: true, next: true, env: true, what: "sets the variable it gives in the container"},
		{name: "--env-file", glued: true, next: true, what: "reads the variables it sets in the container from the file it names"},
		{name: "--entrypoint", glued: true, next: true, what: "runs the program it names in the container"},
	}
	container := loader{clusters: true,
		values: []string{"-H", "--host", "--context", "-l", "--log-level", "-v", "--volume", "-w", "--workdir", "-u", "--user",
			"-p", "--publish", "--name", "--network", "--net", "-h", "--hostname", "-m", "--memory", "--cpus", "--mount",
			"--label", "--platform", "--pull", "--restart", "--userns", "--ulimit", "--add-host", "--device", "--tmpfs"},
		flags: []loadFlag{
			{name: "--config", glued: true, next: true, what: "reads the configuration it names, whose credential helpers are programs it runs"},
		},
		subcommands: map[string][]loadFlag{"run": containerFlags, "create": containerFlags, "exec": containerFlags},
		example:     `command = ["docker", "run", "--rm", "-e", "GREETING=${param.x}", "alpine", "printenv", "GREETING"]`}
	m := map[string]loader{"git": git, "ssh": ssh, "scp": sshClient, "sftp": sshClient,
		"rsync": rsync, "tar": tar, "gtar": tar, "bsdtar": tar,
		"zip": {interleaved: true, flags: []loadFlag{
			{name: "-TT", glued: true, next: true, what: "runs the command it gives to test the archive"},
			{name: "--unzip-command", glued: true, next: true, what: "runs the command it gives to test the archive"},
		}, example: `command = ["zip", "-r", "out.zip", "--", param.path]`},
		"sort": {interleaved: true, flags: []loadFlag{{name: "--compress-program", glued: true, next: true, what: runsProgram}},
			example: `command = ["sort", "--", param.path]`},
		"curl": {interleaved: true, clusters: true, flags: []loadFlag{
			{name: "-K", glued: true, next: true, what: "reads options from the file it names"},
			{name: "--config", glued: true, next: true, what: "reads options from the file it names"},
		}, example: `command = ["curl", "-sS", "--", param.url]`},
		"wget": {interleaved: true, clusters: true, flags: []loadFlag{
			{name: "-e", glued: true, next: true, what: "runs the wgetrc command it gives, such as use_askpass, a program it runs"},
			{name: "--execute", glued: true, next: true, what: "runs the wgetrc command it gives, such as use_askpass, a program it runs"},
			{name: "--config", glued: true, next: true, what: "reads the wgetrc it names"},
			{name: "--use-askpass", glued: true, what: runsProgram},
		}, example: `command = ["wget", "-q", "--", param.url]`},
		"sudo": {clusters: true, envOperands: true,
			values: []string{"-u", "-g", "-C", "-D", "-p", "-r", "-t", "-U", "-T", "-R", "--user", "--group",
				"--close-from", "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--command-timeout", "--chroot"},
			flags: []loadFlag{
				{name: "--preserve-env", glued: true, what: "keeps the variables it names from toolhost's environment, which may choose the code that runs"},
			}, example: `command = ["sudo", "-u", "app", "GREETING=${param.x}", "printenv", "GREETING"]`},
		"systemd-run": {clusters: true,
			values: []string{"-u", "--unit", "-M", "--machine", "-H", "--host", "--description", "--slice", "--uid", "--gid",
				"--working-directory", "--nice", "--service-type", "--on-active", "--on-boot", "--on-startup",
				"--on-unit-active", "--on-unit-inactive", "--on-calendar"},
			flags: []loadFlag{
				{name: "-E", glued: true, next: true, env: true, what: "sets the variable it gives for the command"},
				{name: "--setenv", glued: true, next: true, env: true, what: "sets the variable it gives for the command"},
				{name: "-p", glued: true, next: true, what: "takes a unit setting such as Environment= or ExecStartPre=, which set variables or run commands"},
				{name: "--property", glued: true, next: true, what: "takes a unit setting such as Environment= or ExecStartPre=, which set variables or run commands"},
				{name: "--timer-property", glued: true, next: true, what: "takes a unit setting, which may run commands"},
				{name: "--path-property", glued: true, next: true, what: "takes a unit setting, which may run commands"},
				{name: "--socket-property", glued: true, next: true, what: "takes a unit setting, which may run commands"},
			}, example: `command = ["systemd-run", "--user", "--setenv=GREETING=${param.x}", "printenv", "GREETING"]`},
		"docker": container, "podman": container, "nerdctl": container,
		"man": {interleaved: true, clusters: true, flags: []loadFlag{
			{name: "-P", glued: true, next: true, what: "runs the pager it names"},
			{name: "--pager", glued: true, next: true, what: "runs the pager it names"},
			{name: "-H", glued: true, what: "runs the browser it names"},
			{name: "--html", glued: true, what: "runs the browser it names"},
		}, example: `command = ["man", "-P", "cat", param.page]`},
	}
	return m
}

// loaderFor returns the loader a program is, by its name or path, as
// interpreterFor does.
func loaderFor(prog string) (loader, bool) {
	return programIn(loaders(), prog)
}

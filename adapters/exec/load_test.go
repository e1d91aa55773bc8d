package exec

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestExecProgramEnv: the variables that choose the code that runs are
// found by class, and the ones that carry data are not.
func TestExecProgramEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		code bool
	}{
		// The program, the loader and the C library.
		{"PATH", true}, {"Path", true}, {"LD_PRELOAD", true}, {"LD_LIBRARY_PATH", true}, {"LD_AUDIT", true},
		{"DYLD_INSERT_LIBRARIES", true}, {"GCONV_PATH", true}, {"LOCPATH", true}, {"NLSPATH", true},
		{"GLIBC_TUNABLES", true}, {"HOSTALIASES", true}, {"COMSPEC", true},
		// What a shell runs by itself.
		{"BASH_ENV", true}, {"ENV", true}, {"ZDOTDIR", true}, {"FPATH", true}, {"IFS", true}, {"SHELLOPTS", true},
		{"BASHOPTS", true}, {"PS4", true}, {"PROMPT_COMMAND", true}, {"BASH_FUNC_greet%%", true}, {"SHELL", true},
		{"CONFIG_SHELL", true},
		// Interpreters and toolchains, by prefix.
		{"PYTHONPATH", true}, {"PYTHONWARNINGS", true}, {"PYTHONBREAKPOINT", true}, {"PYTHONUSERBASE", true},
		{"PERL5LIB", true}, {"PERL5OPT", true}, {"PERL5DB", true}, {"PERLLIB", true}, {"RUBYOPT", true}, {"RUBYLIB", true},
		{"GEM_PATH", true}, {"BUNDLE_GEMFILE", true}, {"NODE_OPTIONS", true}, {"NODE_PATH", true},
		{"NODE_REPL_EXTERNAL_MODULE", true}, {"npm_config_script_shell", true}, {"JAVA_TOOL_OPTIONS", true},
		{"_JAVA_OPTIONS", true}, {"JDK_JAVA_OPTIONS", true}, {"JAVA_HOME", true}, {"CLASSPATH", true},
		{"LUA_PATH", true}, {"LUA_INIT", true}, {"PHPRC", true}, {"PHP_INI_SCAN_DIR", true}, {"R_PROFILE_USER", true},
		{"JULIA_LOAD_PATH", true}, {"DOTNET_STARTUP_HOOKS", true}, {"CORECLR_PROFILER_PATH", true},
		{"GOFLAGS", true}, {"GOPROXY", true}, {"GOTOOLCHAIN", true}, {"RUSTC_WRAPPER", true}, {"CARGO_BUILD_RUSTC", true},
		{"TCLLIBPATH", true},
		// git.
		{"GIT_EXTERNAL_DIFF", true}, {"GIT_PROXY_COMMAND", true}, {"GIT_SEQUENCE_EDITOR", true}, {"GIT_EDITOR", true},
		{"GIT_PAGER", true}, {"GIT_ASKPASS", true}, {"GIT_SSH", true}, {"GIT_SSH_COMMAND", true}, {"GIT_CONFIG", true},
		{"GIT_CONFIG_GLOBAL", true}, {"GIT_CONFIG_PARAMETERS", true}, {"GIT_CONFIG_VALUE_0", true}, {"GIT_EXEC_PATH", true},
		{"GIT_TEMPLATE_DIR", true}, {"GIT_DIR", true}, {"GIT_WORK_TREE", true}, {"GIT_ALLOW_PROTOCOL", true},
		{"GIT_TRACE", true}, {"GIT_INDEX_FILE", true}, {"GIT_OBJECT_DIRECTORY", true},
		// By the words of the name.
		{"EDITOR", true}, {"VISUAL", true}, {"PAGER", true}, {"MANPAGER", true}, {"SYSTEMD_PAGER", true},
		{"BROWSER", true}, {"SSH_ASKPASS", true}, {"SUDO_ASKPASS", true}, {"LESSOPEN", true}, {"LESSCLOSE", true},
		{"LESS", true}, {"FZF_DEFAULT_COMMAND", true}, {"DIFF_CMD", true}, {"MAVEN_OPTS", true}, {"GRADLE_OPTS", true},
		{"CFLAGS", true}, {"MAKEFLAGS", true}, {"RUSTFLAGS", true}, {"TOOL_OPTIONS", true}, {"CC", true}, {"CXX", true},
		{"HOME", true}, {"XDG_CONFIG_HOME", true}, {"GNUPGHOME", true}, {"KUBECONFIG", true}, {"DOCKER_CONFIG", true},
		{"AWS_CONFIG_FILE", true}, {"FCEDIT", true}, {"MANOPT", true}, {"RSYNC_RSH", true}, {"CVS_RSH", true},
		{"SVN_SSH", true}, {"RSYNC_CONNECT_PROG", true}, {"GTK_MODULES", true}, {"QT_PLUGIN_PATH", true},
		{"GST_PLUGIN_SYSTEM_PATH", true}, {"LIBPATH", true}, {"R_LIBS", true}, {"TERMINAL_EXEC", true}, {"OPENSSL_CONF", true}, {"WGETRC", true}, {"CURL_HOME", true},
		// Data.
		{"GREETING", false}, {"LANG", false}, {"LC_ALL", false}, {"TZ", false}, {"TERM", false}, {"TMPDIR", false},
		{"GIT_AUTHOR_NAME", false}, {"GIT_AUTHOR_EMAIL", false}, {"GIT_COMMITTER_DATE", false},
		{"GIT_TERMINAL_PROMPT", false}, {"GIT_LITERAL_PATHSPECS", false}, {"API_TOKEN", false}, {"QUERY", false},
		{"OUTPUT_PATH", false}, {"SLACK_WEBHOOK_URL", false}, {"WEBHOOK", false}, {"PATTERN", false},
		{"GOOGLE_APPLICATION_CREDENTIALS", false}, {"SSH_HOST", false}, {"DISPLAY_NAME", false}, {"LIMIT", false}, {"USER", false}, {"PWD", false},
		// The second review's names, and their classes.
		{"VIMINIT", true}, {"EXINIT", true}, {"GVIMINIT", true}, {"MYVIMRC", true}, {"VIMRUNTIME", true}, {"HGRCPATH", true},
		{"OPENSSL_ENGINES", true}, {"OPENSSL_MODULES", true}, {"OPENSSL_CONF", true}, {"PIP_INDEX_URL", true},
		{"PIP_EXTRA_INDEX_URL", true}, {"pip_find_links", true}, {"UV_INDEX_URL", true}, {"UV_DEFAULT_INDEX", true},
		{"YARN_RC_FILENAME", true}, {"YARN_NPM_REGISTRY_SERVER", true}, {"POETRY_REPOSITORIES_X_URL", true},
		{"COMPOSER_HOME", true}, {"CONDA_CHANNELS", true}, {"PNPM_HOME", true}, {"MAGICK_CONFIGURE_PATH", true},
		{"MAGICK_CODER_MODULE_PATH", true}, {"EMACSLOADPATH", true}, {"PSQLRC", true}, {"TCL_LIBRARY", true},
		{"TK_LIBRARY", true}, {"MAILCAP", true}, {"MAILCAPS", true}, {"SCREENRC", true}, {"NPMRC", true},
		{"SQLITE_INIT", true}, {"PYTHONSTARTUP", true}, {"GIT_CONFIG_NOSYSTEM", true}, {"GNUPG_ENGINES", true},
		{"IMAGE_SRC", false}, {"SRC", false}, {"PIPELINE", false}, {"UVICORN_PORT", false}, {"YARNS", false},
		{"SEARCH_ENGINE", false}, {"COMPOSE_PROJECT_NAME", false}, {"CONDADIR_NAME", false}, {"MAGIC", false},
		{"INITIAL_VALUE", false}, {"DESCRIPTION", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			why := programEnv(tc.name)
			if (why != "") != tc.code {
				t.Errorf("programEnv(%q) = %q, want code %v", tc.name, why, tc.code)
			}
		})
	}
}

// TestExecLoadCodeRefused: a parameter in a variable or an option that
// chooses the code that runs is refused at load, whichever way it is
// written.
func TestExecLoadCodeRefused(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	for _, tc := range []struct {
		name, body, summary, subject, detail string
	}{
		// The examples.
		{"GIT_EXTERNAL_DIFF", `command = ["git", "diff"]
env = { GIT_EXTERNAL_DIFF = param.path }`, "Parameter chooses the program", `param.path`, "GIT_EXTERNAL_DIFF chooses the code the command runs (a program, hook, config or repository git uses)"},
		{"GIT_PROXY_COMMAND", `command = ["git", "fetch"]
env = { GIT_PROXY_COMMAND = "${param.path}" }`, "Parameter chooses the program", `"${param.path}"`, "only those that carry data may use parameters, such as GIT_AUTHOR_NAME"},
		{"GIT_SEQUENCE_EDITOR", `command = ["git", "rebase", "-i", "HEAD~2"]
env = { GIT_SEQUENCE_EDITOR = "sed -i ${param.text}" }`, "Parameter chooses the program", `"sed -i ${param.text}"`, "GIT_SEQUENCE_EDITOR"},
		{"GCONV_PATH", `command = ["iconv", "-f", "UTF-8"]
env = { GCONV_PATH = param.path }`, "Parameter chooses the program", `param.path`, "what the loader and the C library load into it"},
		{"GIT_DIR", `command = ["git", "log"]
env = { GIT_DIR = param.path }`, "Parameter chooses the program", `param.path`, "GIT_DIR"},
		{"PYTHONWARNINGS", `command = ["python3", "tool.py"]
env = { PYTHONWARNINGS = "ignore::${param.text}" }`, "Parameter chooses the program", `"ignore::${param.text}"`, "the modules an interpreter loads"},
		{"lower-case name", `command = ["ls"]
env = { ld_preload = param.path }`, "Parameter chooses the program", `param.path`, "ld_preload"},
		{"quoted name", `command = ["ls"]
env = { "MANPAGER" = param.text }`, "Parameter chooses the program", `param.text`, "a program another program starts"},
		{"options variable", `command = ["mvn", "package"]
env = { MAVEN_OPTS = "-Xmx${param.text}" }`, "Parameter chooses the program", `"-Xmx${param.text}"`, "the options a program runs with"},
		{"config variable", `command = ["kubectl", "get", "pods"]
env = { KUBECONFIG = param.path }`, "Parameter chooses the program", `param.path`, "where a program reads its settings"},
		{"HOME", `command = ["git", "log"]
env = { HOME = "/home/${param.text}" }`, "Parameter chooses the program", `"/home/${param.text}"`, "HOME"},
		{"an answer", `command = ["git", "diff"]
env = { GIT_EXTERNAL_DIFF = answer.tool }`, "Parameter chooses the program", `answer.tool`, "GIT_EXTERNAL_DIFF"},
		{"package index", `command = ["pip", "install", "requests"]
env = { PIP_INDEX_URL = param.text }`, "Parameter chooses the program", `param.text`, "the index it installs packages from"},
		{"editor start command", `command = ["vim", "-es", "notes.txt"]
env = { VIMINIT = param.text }`, "Parameter chooses the program", `param.text`, "what an editor or an interpreter runs at start"},
		{"startup file", `command = ["psql", "-c", "select 1"]
env = { PSQLRC = param.path }`, "Parameter chooses the program", `param.path`, "the startup file a program reads"},
		{"OpenSSL engines through env", `command = ["env", "OPENSSL_ENGINES=${param.path}", "openssl", "version"]`, "Parameter chooses the program", `"OPENSSL_ENGINES=${param.path}"`, "OpenSSL loads"},
		// Set through the env program.
		{"env program LD_PRELOAD", `command = ["env", "LD_PRELOAD=${param.path}", "ls"]`, "Parameter chooses the program", `"LD_PRELOAD=${param.path}"`, `LD_PRELOAD, which env sets, chooses the code the command runs (the libraries the loader loads into the program), so its value cannot refer to parameter "path"`},
		{"env program after -a and its value", `command = ["env", "-a", "ls", "LD_PRELOAD=${param.path}", "ls"]`, "Parameter chooses the program", `"LD_PRELOAD=${param.path}"`, "LD_PRELOAD, which env sets"},
		{"env program after options", `command = ["/usr/bin/env", "-i", "-u", "HOME", "LANG=C", "GIT_EXTERNAL_DIFF=${param.path}", "git", "diff"]`, "Parameter chooses the program", `"GIT_EXTERNAL_DIFF=${param.path}"`, "GIT_EXTERNAL_DIFF, which env sets"},
		{"env program behind a wrapper", `command = ["nice", "env", "PATH=${param.path}:/usr/bin", "ls"]`, "Parameter chooses the program", `"PATH=${param.path}:/usr/bin"`, "PATH, which env sets"},
		{"env program name from a function", `command = ["env", "${upper("ld_preload")}=${param.path}", "ls"]`, "Parameter chooses the program", `"${upper("ld_preload")}=${param.path}"`, "LD_PRELOAD, which env sets"},
		{"env program after an assignment from a param", `command = ["env", "GREETING=${param.text}", "PYTHONPATH=${param.path}", "python3", "tool.py"]`, "Parameter chooses the program", `"PYTHONPATH=${param.path}"`, "PYTHONPATH, which env sets"},
		{"env program name from a param", `command = ["env", "${param.text}=1", "ls"]`, "Name must be constant", `"${param.text}=1"`, `refers to parameter "text", so the model calling the tool would choose which variable it sets`},
		// Built by expressions, as the script check sees them.
		{"env program in concat", `command = concat(["env"], ["LD_PRELOAD=${param.path}"], ["ls"])`, "Parameter chooses the program", `"LD_PRELOAD=${param.path}"`, "LD_PRELOAD, which env sets"},
		{"env program in flatten", `command = flatten([["env", "LD_PRELOAD=${param.path}"], ["ls"]])`, "Parameter chooses the program", `param.path`, "LD_PRELOAD"},
		{"env program in a for expression", `command = [for s in ["env", "GIT_EXTERNAL_DIFF=${param.path}", "git", "diff"] : s]`, "Parameter chooses the program", `param.path`, "GIT_EXTERNAL_DIFF"},
		{"ssh -o in slice", `command = slice(["ssh", "-o", "ProxyCommand=${param.text}", "host", "x"], 0, 4)`, "Parameter chooses the code that runs", `param.text`, "-o of ssh"},
		{"perl -M in concat", `command = concat(["perl"], ["-M${param.text}"], ["-e", "1"])`, "Parameter chooses the code that runs", `"-M${param.text}"`, "-M of perl"},
		{"git -c in reverse", `command = reverse(["log", "core.pager=${param.text}", "-c", "git"])`, "Parameter chooses the code that runs", `param.text`, "-c of git"},
		{"python -m in flatten", `command = flatten([["python3"], ["-m", param.text]])`, "Parameter chooses the code that runs", `param.text`, "-m of python3"},
		{"python -m, a list known at a call", `command = concat(["python3", "-m"], param.files)`, "Parameter chooses the code that runs", `param.files`, "-m of python3"},
		{"git --exec-path, a list known at a call", `command = concat(["git"], [for p in param.files : "--exec-path=${p}"], ["log"])`, "Parameter chooses the code that runs", `"--exec-path=${p}"`, "--exec-path of git"},
		{"node --require behind timeout in concat", `command = concat(["timeout", "5"], ["node", "--require", param.path], ["app.js"])`, "Parameter chooses the code that runs", `param.path`, "--require of node"},
		{"git -c in a conditional decided at load", `command = true ? ["git", "-c", "core.pager=${param.text}", "log"] : ["ls"]`, "Parameter chooses the code that runs", `"core.pager=${param.text}"`, "-c of git"},
		// Options that load code.
		{"perl -M", `command = ["perl", "-M${param.text}", "-e", "1"]`, "Parameter chooses the code that runs", `"-M${param.text}"`, `The option -M of perl loads the module it names, and runs its import with the arguments after "=", and its value refers to parameter "text"`},
		{"perl -M import list", `command = ["perl", "-MPOSIX=${param.text}", "-e", "1"]`, "Parameter chooses the code that runs", `"-MPOSIX=${param.text}"`, `["perl", "-MPOSIX", "-e", "print floor($ARGV[0])", param.x]`},
		{"perl -m in a cluster", `command = ["perl", "-wm${param.text}", "script.pl"]`, "Parameter chooses the code that runs", `"-wm${param.text}"`, "The option -m (in -wm) of perl"},
		{"perl -I", `command = ["perl", "-I${param.text}", "script.pl"]`, "Parameter chooses the code that runs", `"-I${param.text}"`, "modules from the directory it names"},
		{"perl -I next", `command = ["perl", "-I", param.path, "script.pl"]`, "Parameter chooses the code that runs", `param.path`, "-I of perl"},
		{"perl -d", `command = ["perl", "-d:${param.text}", "script.pl"]`, "Parameter chooses the code that runs", `"-d:${param.text}"`, "the debugger module"},
		{"perl with a version", `command = ["perl5.36", "-M${param.text}", "script.pl"]`, "Parameter chooses the code that runs", `"-M${param.text}"`, "perl5.36"},
		{"perl after -e", `command = ["perl", "-e", "print 1", "-M${param.text}"]`, "Parameter chooses the code that runs", `"-M${param.text}"`, "-M of perl"},
		{"python -m", `command = ["python3", "-m", param.text]`, "Parameter chooses the code that runs", `param.text`, "The option -m of python3 runs the module it names, and its value refers to parameter \"text\", so the model calling the tool would choose code that runs. Write the option's value literally in the configuration, declaring a tool for each choice if the model is to choose, and pass values as arguments of their own, as in command = [\"python3\", \"-m\", \"json.tool\", param.x]."},
		{"python -m glued", `command = ["python3", "-m${param.text}"]`, "Parameter chooses the code that runs", `"-m${param.text}"`, "-m of python3"},
		{"python -m in a cluster", `command = ["python3", "-Bm", "${param.text}.main"]`, "Parameter chooses the code that runs", `"${param.text}.main"`, "-m (in -Bm) of python3"},
		{"python -W", `command = ["python3", "-W${param.text}", "script.py"]`, "Parameter chooses the code that runs", `"-W${param.text}"`, "the warning category"},
		{"python -W next", `command = ["python3", "-W", "ignore::${param.text}", "script.py"]`, "Parameter chooses the code that runs", `"ignore::${param.text}"`, "-W of python3"},
		{"python -X", `command = ["python3", "-X", "pycache_prefix=${param.path}", "script.py"]`, "Parameter chooses the code that runs", `"pycache_prefix=${param.path}"`, "pycache_prefix"},
		{"ruby -r", `command = ["ruby", "-r", param.text, "script.rb"]`, "Parameter chooses the code that runs", `param.text`, "the library it names"},
		{"ruby -I in a cluster", `command = ["ruby", "-wI${param.path}", "script.rb"]`, "Parameter chooses the code that runs", `"-wI${param.path}"`, "-I (in -wI) of ruby"},
		{"node --require", `command = ["node", "--require", param.path, "app.js"]`, "Parameter chooses the code that runs", `param.path`, "--require of node"},
		{"node --require=", `command = ["node", "--require=${param.path}", "app.js"]`, "Parameter chooses the code that runs", `"--require=${param.path}"`, "--require of node"},
		{"node -r", `command = ["nodejs", "-r", "./${param.path}", "app.js"]`, "Parameter chooses the code that runs", `"./${param.path}"`, "-r of nodejs"},
		{"node --import", `command = ["node", "--import=${param.text}", "app.mjs"]`, "Parameter chooses the code that runs", `"--import=${param.text}"`, "--import"},
		{"node --loader", `command = ["node", "--experimental-loader", param.text, "app.mjs"]`, "Parameter chooses the code that runs", `param.text`, "module loader"},
		{"node --env-file", `command = ["node", "--env-file=${param.path}", "app.js"]`, "Parameter chooses the code that runs", `"--env-file=${param.path}"`, "NODE_OPTIONS"},
		{"node --inspect", `command = ["node", "--inspect=${param.text}", "app.js"]`, "Parameter chooses the code that runs", `"--inspect=${param.text}"`, "debugger"},
		{"node after -e", `command = ["node", "-e", "1", "--require", param.path]`, "Parameter chooses the code that runs", `param.path`, "--require"},
		{"bun --preload", `command = ["bun", "--preload", param.path, "app.ts"]`, "Parameter chooses the code that runs", `param.path`, "--preload of bun"},
		{"php -d", `command = ["php", "-d", "auto_prepend_file=${param.path}", "script.php"]`, "Parameter chooses the code that runs", `"auto_prepend_file=${param.path}"`, "auto_prepend_file"},
		{"php -d glued", `command = ["php", "-dauto_prepend_file=${param.path}", "script.php"]`, "Parameter chooses the code that runs", `"-dauto_prepend_file=${param.path}"`, "-d of php"},
		{"php -c", `command = ["php", "-c", param.path, "script.php"]`, "Parameter chooses the code that runs", `param.path`, "php.ini"},
		{"lua -l", `command = ["lua", "-l", param.text, "script.lua"]`, "Parameter chooses the code that runs", `param.text`, "-l of lua"},
		{"luajit -j", `command = ["luajit", "-j${param.text}", "script.lua"]`, "Parameter chooses the code that runs", `"-j${param.text}"`, "jit module"},
		{"java -javaagent", `command = ["java", "-javaagent:${param.path}", "-jar", "app.jar"]`, "Parameter chooses the code that runs", `"-javaagent:${param.path}"`, "the agent it names"},
		{"java -XX:OnError", `command = ["java", "-XX:OnError=${param.text}", "-jar", "app.jar"]`, "Parameter chooses the code that runs", `"-XX:OnError=${param.text}"`, "OnError"},
		{"java -cp", `command = ["java", "-cp", param.path, "app.Main"]`, "Parameter chooses the code that runs", `param.path`, "-cp of java"},
		{"java -jar", `command = ["java", "-jar", "${param.path}.jar"]`, "Parameter chooses the code that runs", `"${param.path}.jar"`, "the archive it names"},
		{"java argument file", `command = ["java", "@${param.path}", "app.Main"]`, "Parameter chooses the code that runs", `"@${param.path}"`, "options from the file"},
		{"git -c", `command = ["git", "-c", "core.pager=${param.text}", "log"]`, "Parameter chooses the code that runs", `"core.pager=${param.text}"`, "core.sshCommand"},
		{"git -c after -C", `command = ["git", "-C", "repo", "-c", param.text, "log"]`, "Parameter chooses the code that runs", `param.text`, "-c of git"},
		{"git --config-env", `command = ["git", "--config-env=${param.text}", "log"]`, "Parameter chooses the code that runs", `"--config-env=${param.text}"`, "--config-env of git"},
		{"git --exec-path", `command = ["git", "--exec-path=${param.path}", "log"]`, "Parameter chooses the code that runs", `"--exec-path=${param.path}"`, "git's commands"},
		{"git --upload-pack", `command = ["git", "ls-remote", "--upload-pack=${param.text}", "origin"]`, "Parameter chooses the code that runs", `"--upload-pack=${param.text}"`, "--upload-pack of git"},
		{"git rebase --exec", `command = ["git", "rebase", "--exec", "make ${param.text}", "main"]`, "Parameter chooses the code that runs", `"make ${param.text}"`, "runs the command it gives"},
		{"git rebase --exec after an operand", `command = ["git", "rebase", "main", "--exec=make ${param.text}"]`, "Parameter chooses the code that runs", `"--exec=make ${param.text}"`, "--exec of git"},
		{"git rebase -x", `command = ["git", "rebase", "-x", param.text, "main"]`, "Parameter chooses the code that runs", `param.text`, "-x of git"},
		{"git clone -c", `command = ["git", "clone", "-c", "core.hooksPath=${param.path}", "https://example.com/r.git"]`, "Parameter chooses the code that runs", `"core.hooksPath=${param.path}"`, "-c of git"},
		{"git clone --template", `command = ["git", "clone", "--template=${param.path}", "https://example.com/r.git"]`, "Parameter chooses the code that runs", `"--template=${param.path}"`, "hooks"},
		{"git clone -u", `command = ["git", "clone", "-u", param.text, "https://example.com/r.git"]`, "Parameter chooses the code that runs", `param.text`, "-u of git"},
		{"ssh -o", `command = ["ssh", "-o", "ProxyCommand=${param.text}", "host.example", "uptime"]`, "Parameter chooses the code that runs", `"ProxyCommand=${param.text}"`, "ProxyCommand"},
		{"ssh -o glued", `command = ["ssh", "-oProxyCommand=${param.text}", "host.example"]`, "Parameter chooses the code that runs", `"-oProxyCommand=${param.text}"`, "-o of ssh"},
		{"ssh -F", `command = ["ssh", "-F", param.path, "host.example"]`, "Parameter chooses the code that runs", `param.path`, "-F of ssh"},
		{"scp -S", `command = ["scp", "-S", param.path, "a", "b:"]`, "Parameter chooses the code that runs", `param.path`, "-S of scp"},
		{"rsync -e", `command = ["rsync", "-a", "-e", "ssh ${param.text}", "src/", "host:dst/"]`, "Parameter chooses the code that runs", `"ssh ${param.text}"`, "remote shell"},
		{"rsync --rsync-path", `command = ["rsync", "--rsync-path=${param.text}", "src/", "host:dst/"]`, "Parameter chooses the code that runs", `"--rsync-path=${param.text}"`, "remote side"},
		{"tar --checkpoint-action", `command = ["tar", "-cf", "out.tar", "--checkpoint=1", "--checkpoint-action=exec=${param.text}", "dir"]`, "Parameter chooses the code that runs", `"--checkpoint-action=exec=${param.text}"`, "exec= action"},
		{"ssh -o in a cluster", `command = ["ssh", "-vo", "ProxyCommand=${param.text}", "host.example"]`, "Parameter chooses the code that runs", `"ProxyCommand=${param.text}"`, "-o (in -vo) of ssh"},
		{"rsync -e in a cluster", `command = ["rsync", "-ae", param.text, "src/", "host:dst/"]`, "Parameter chooses the code that runs", `param.text`, "-e (in -ae) of rsync"},
		{"tar -I", `command = ["tar", "-I", param.text, "-xf", "a.tar"]`, "Parameter chooses the code that runs", `param.text`, "-I of tar"},
		{"zip -TT", `command = ["zip", "-T", "-TT", param.text, "out.zip", "f"]`, "Parameter chooses the code that runs", `param.text`, "-TT of zip"},
		{"sort --compress-program", `command = ["sort", "--compress-program=${param.text}", "f"]`, "Parameter chooses the code that runs", `"--compress-program=${param.text}"`, "--compress-program of sort"},
		{"curl -K", `command = ["curl", "-K", param.path, "https://example.com"]`, "Parameter chooses the code that runs", `param.path`, "-K of curl"},
		{"wget -e", `command = ["wget", "-e", "use_askpass=${param.text}", "https://example.com"]`, "Parameter chooses the code that runs", `"use_askpass=${param.text}"`, "wgetrc"},
		{"man -P", `command = ["man", "-P", param.text, "ls"]`, "Parameter chooses the code that runs", `param.text`, "pager"},
		{"java -m", `command = ["java", "-p", "mods", "-m", param.text]`, "Parameter chooses the code that runs", `param.text`, "-m of java"},
		{"deno run --config", `command = ["deno", "run", "--config", param.path, "main.ts"]`, "Parameter chooses the code that runs", `param.path`, "--config of deno"},
		{"git difftool --extcmd", `command = ["git", "difftool", "--extcmd", param.text]`, "Parameter chooses the code that runs", `param.text`, "--extcmd"},
		{"bash --rcfile", `command = ["bash", "--rcfile", param.path, "-i"]`, "Parameter chooses the code that runs", `param.path`, "startup file"},
		{"behind a wrapper", `command = ["timeout", "5", "perl", "-M${param.text}", "script.pl"]`, "Parameter chooses the code that runs", `"-M${param.text}"`, "-M of perl"},
		{"behind env", `command = ["env", "LANG=C", "python3", "-m", param.text]`, "Parameter chooses the code that runs", `param.text`, "-m of python3"},
		// The second review's options, and others of their class.
		{"gawk -l", `command = ["gawk", "-l", param.text, "{ print }", "f"]`, "Parameter chooses the code that runs", `param.text`, "-l of gawk loads the extension library"},
		{"gawk --load", `command = ["gawk", "--load", param.text, "{ print }", "f"]`, "Parameter chooses the code that runs", `param.text`, "--load of gawk"},
		{"gawk -i", `command = ["gawk", "-i", param.path, "{ print }", "f"]`, "Parameter chooses the code that runs", `param.path`, "-i of gawk loads the source file"},
		{"awk --include", `command = ["awk", "--include", param.path, "{ print }"]`, "Parameter chooses the code that runs", `param.path`, "--include of awk"},
		{"awk -f", `command = ["awk", "-f", param.path, "data.txt"]`, "Parameter chooses the code that runs", `param.path`, "-f of awk runs the program file"},
		{"awk -f after -v", `command = ["awk", "-v", "x=1", "-f", param.path, "data.txt"]`, "Parameter chooses the code that runs", `param.path`, "-f of awk"},
		{"php --define", `command = ["php", "--define", "auto_prepend_file=${param.path}", "s.php"]`, "Parameter chooses the code that runs", `"auto_prepend_file=${param.path}"`, "auto_prepend_file"},
		{"php --define glued", `command = ["php", "--define=auto_prepend_file=${param.path}", "s.php"]`, "Parameter chooses the code that runs", `"--define=auto_prepend_file=${param.path}"`, "--define of php"},
		{"php --php-ini", `command = ["php", "--php-ini", param.path, "s.php"]`, "Parameter chooses the code that runs", `param.path`, "--php-ini of php"},
		{"git submodule foreach", `command = ["git", "submodule", "foreach", param.text]`, "Parameter chooses the code that runs", `param.text`, "foreach of git runs the shell command"},
		{"git submodule foreach script", `command = ["git", "submodule", "foreach", "git log ${param.text}"]`, "Parameter chooses the code that runs", `"git log ${param.text}"`, "foreach of git"},
		{"git bisect run", `command = ["git", "bisect", "run", param.path]`, "Parameter chooses the code that runs", `param.path`, "run of git runs the program"},
		{"node --experimental-config-file", `command = ["node", "--experimental-config-file=${param.path}", "app.js"]`, "Parameter chooses the code that runs", `"--experimental-config-file=${param.path}"`, "--require"},
		{"node --test-reporter", `command = ["node", "--test", "--test-reporter", param.text]`, "Parameter chooses the code that runs", `param.text`, "reporter module"},
		{"sudo sets a loader variable", `command = ["sudo", "LD_PRELOAD=${param.path}", "ls"]`, "Parameter chooses the program", `"LD_PRELOAD=${param.path}"`, "LD_PRELOAD, which sudo sets"},
		{"sudo after options", `command = ["sudo", "-u", "app", "-E", "BASH_ENV=${param.path}", "bash", "script.sh"]`, "Parameter chooses the program", `"BASH_ENV=${param.path}"`, "BASH_ENV, which sudo sets"},
		{"sudo name from a parameter", `command = ["sudo", "${param.text}=1", "ls"]`, "Name must be constant", `"${param.text}=1"`, "variable sudo sets"},
		{"sudo operand from a parameter", `command = ["sudo", param.text, "ls"]`, "Name must be constant", `param.text`, "variable sudo sets"},
		{"sudo --preserve-env", `command = ["sudo", "--preserve-env=${param.text}", "ls"]`, "Parameter chooses the code that runs", `"--preserve-env=${param.text}"`, "--preserve-env of sudo"},
		{"systemd-run --setenv", `command = ["systemd-run", "--user", "--setenv=LD_PRELOAD=${param.path}", "ls"]`, "Parameter chooses the program", `"--setenv=LD_PRELOAD=${param.path}"`, "LD_PRELOAD, which systemd-run sets"},
		{"systemd-run -E", `command = ["systemd-run", "-E", "PYTHONPATH=${param.path}", "python3", "x.py"]`, "Parameter chooses the program", `"PYTHONPATH=${param.path}"`, "PYTHONPATH"},
		{"systemd-run -E name", `command = ["systemd-run", "-E", param.text, "ls"]`, "Name must be constant", `param.text`, "variable systemd-run sets"},
		{"docker run -e", `command = ["docker", "run", "--rm", "-e", "LD_PRELOAD=${param.path}", "alpine", "ls"]`, "Parameter chooses the program", `"LD_PRELOAD=${param.path}"`, "LD_PRELOAD, which docker sets"},
		{"docker exec --env glued", `command = ["docker", "exec", "--env=BASH_ENV=${param.path}", "box", "bash", "-c", "true"]`, "Parameter chooses the program", `"--env=BASH_ENV=${param.path}"`, "BASH_ENV"},
		{"docker run -e name", `command = ["docker", "run", "-e", param.text, "alpine", "ls"]`, "Name must be constant", `param.text`, "variable docker sets"},
		{"podman run --entrypoint", `command = ["podman", "run", "--entrypoint", param.path, "alpine"]`, "Parameter chooses the code that runs", `param.path`, "--entrypoint of podman"},
		{"docker --config", `command = ["docker", "--config", param.path, "pull", "alpine"]`, "Parameter chooses the code that runs", `param.path`, "credential helpers"},
		{"systemd-run -p", `command = ["systemd-run", "-p", "ExecStartPre=${param.text}", "ls"]`, "Parameter chooses the code that runs", `"ExecStartPre=${param.text}"`, "-p of systemd-run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := blockSource(tc.body)
			_, all := f.compile(t, src)
			var diags hcl.Diagnostics
			for _, d := range all {
				if d.Severity == hcl.DiagError { // not "Program not found"
					diags = append(diags, d)
				}
			}
			if len(diags) == 0 {
				t.Fatal("compile succeeded")
			}
			if len(diags) != 1 {
				t.Fatalf("got %d diagnostics, want 1:\n%s", len(diags), diags.Error())
			}
			d := diags[0]
			if d.Severity != hcl.DiagError || d.Summary != tc.summary {
				t.Errorf("diagnostic %q, want summary %q", d.Error(), tc.summary)
			}
			if d.Subject == nil {
				t.Fatal("no subject")
			}
			if got := src[d.Subject.Start.Byte:d.Subject.End.Byte]; got != tc.subject {
				t.Errorf("subject = %q, want %q", got, tc.subject)
			}
			if !strings.Contains(d.Detail, tc.detail) {
				t.Errorf("detail = %q, want it to contain %q", d.Detail, tc.detail)
			}
			if !strings.HasSuffix(d.Detail, ".") {
				t.Errorf("detail is not a sentence: %q", d.Detail)
			}
		})
	}
}

// TestExecLoadCodeAllowed: fixed code with parameters passed as
// arguments, data variables, options of a program that are not its own
// and values past the end of the options compile.
func TestExecLoadCodeAllowed(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	for _, body := range []string{
		`command = ["git", "commit", "-m", "x"]
env = { GIT_AUTHOR_NAME = param.text, GIT_COMMITTER_DATE = param.a }`,
		`command = ["ls"]
env = { GREETING = param.text, API_TOKEN = param.a, OUTPUT_PATH = param.path, SLACK_WEBHOOK_URL = param.b }`,
		`command = ["ls"]
env = { LD_PRELOAD = "", PATH = "/usr/bin:/bin" }`,
		`command = ["perl", "-MPOSIX", "-e", "print floor($ARGV[0])", param.text]`,
		`command = concat(["perl", "-MPOSIX", "-e", "print floor($ARGV[0])"], [param.text])`,
		`command = flatten([["git", "log", "--author=${param.text}"], ["--", "README.md"]])`,
		`command = concat(["env", "GREETING=${param.text}"], ["printenv", "GREETING"])`,
		`command = concat(["git", "log"], [for f in param.files : "--author=${f}"])`,
		`command = ["perl", "-wle", "print $ARGV[0]", param.text]`,
		`command = ["perl", "script.pl", "-M${param.text}"]`,
		`command = ["python3", "-m", "json.tool", param.path]`,
		`command = ["python3", "script.py", "-m", param.text]`,
		`command = ["python3", "-u", "script.py", "-W", param.text]`,
		`command = ["python3", "-c", "import sys; print(sys.argv[1])", param.text]`,
		`command = ["node", "--max-old-space-size=${param.text}", "app.js"]`,
		`command = ["node", "app.js", "--require", param.text]`,
		`command = ["ruby", "-rjson", "-e", "puts ARGV[0]", param.text]`,
		`command = ["php", "-d", "memory_limit=256M", "script.php", param.text]`,
		`command = ["java", "-cp", "app.jar", "app.Main", "-cp", param.text]`,
		`command = ["git", "-C", param.path, "log", "--end-of-options", param.text]`,
		`command = ["git", "log", "-c", param.text]`,
		`command = ["git", "commit", "-c", param.text]`,
		`command = ["git", "ls-remote", "--", "--upload-pack=${param.text}"]`,
		`command = ["grep", "-M", "${param.text}", "notes.txt"]`,
		`command = ["env", "GREETING=${param.text}", "printenv", "GREETING"]`,
		`command = ["env", "-u", "PATH", "ls", "PATH=${param.text}"]`,
		`command = ["gawk", "-v", "x=${param.text}", "{ print x }", "data.txt"]`,
		`command = ["gawk", "-l", "ordchr", "-f", "report.awk", param.path]`,
		`command = ["awk", "{ print $1 }", "-f", param.path]`,
		`command = ["php", "--define", "memory_limit=256M", "s.php", param.text]`,
		`command = ["git", "submodule", "foreach", "git", "pull"]`,
		`command = ["git", "submodule", "update", "--init", "--", param.path]`,
		`command = ["git", "bisect", "good", param.text]`,
		`command = ["sudo", "-u", "app", "GREETING=${param.text}", "printenv", "GREETING"]`,
		`command = ["sudo", "-u", param.text, "ls"]`,
		`command = ["sudo", "ls", "LD_PRELOAD=${param.text}"]`,
		`command = ["systemd-run", "--user", "--setenv=GREETING=${param.text}", "printenv", "GREETING"]`,
		`command = ["systemd-run", "-E", "GREETING=${param.text}", "--unit", param.text, "ls"]`,
		`command = ["docker", "run", "--rm", "-e", "GREETING=${param.text}", "-v", "/data:/data", "alpine", "printenv", "GREETING"]`,
		`command = ["docker", "run", "--rm", "alpine", "grep", "-e", param.text, "/etc/os-release"]`,
		`command = ["docker", "exec", "-w", param.path, "box", "ls"]`,
		`command = ["ssh", "-o", "BatchMode=yes", "host.example", "-o", param.text]`,
		`command = ["ssh", "-p", "2222", "host.example", "grep", "-F", param.text]`,
		`command = ["tar", "-xzf", "archive.tar.gz", "--", param.path]`,
		`command = ["tar", "-xzf", "archive.tar.gz", "-C", "out", param.path]`,
		`command = ["curl", "-sS", "-H", "X-Query: ${param.text}", "https://example.com"]`,
		`command = ["rsync", "-a", "--", "src/", param.path]`,
		`command = ["deno", "run", "main.ts", "--config", param.text]`,
		`command = ["git", "log", "--end-of-options", "--exec=${param.text}"]`,
		`command = ["git", "cherry-pick", "-x", param.text]`,
		`command = ["man", "--", param.text]`,
	} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			f.mustCompile(t, body)
		})
	}
}

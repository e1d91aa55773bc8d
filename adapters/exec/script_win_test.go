package exec

import (
	"errors"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestExecWindowsPrograms: a parameter that reaches cmd's command, a
// PowerShell command (-Command, -EncodedCommand, Windows PowerShell's
// first operand) or what mshta and rundll32 run is refused at load, on
// every platform, with a message saying how to pass the value safely.
func TestExecWindowsPrograms(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	f.answers = map[string]cty.Type{"a": cty.String}
	tests := []struct{ name, body, subject, detail string }{
		// cmd /c, /k, /r, in any case, with or without a path, joined or not.
		{"cmd /c with the command glued", `command = ["cmd", "/cdir", param.text]`, `param.text`, "cmd joins this argument"},
		{"cmd /c with a quoted command glued", `command = ["cmd", "/c\"type\"", param.text]`, `param.text`, "cmd joins this argument"},
		{"cmd /R through its path", `command = ["C:\\Windows\\System32\\CMD.EXE", "/R", "echo ${param.text}"]`, `"echo ${param.text}"`, "CMD.EXE joins this argument"},
		{"cmd /k", `command = ["cmd.exe", "/k", "type", param.text]`, `param.text`, "Run the program directly instead of through cmd"},
		{"cmd /c glued after other switches", `command = ["cmd", "/d/q/cdir", param.text]`, `param.text`, "cmd joins this argument"},
		{"cmd with a switch the caller chooses", `command = ["cmd", "/d", param.opt, "x"]`, `param.opt`, "may start with /c"},
		{"cmd with an answer", `command = ["cmd", "/c", "type", answer.a]`, `answer.a`, "the ask form's answer \"a\""},
		{"cmd /c in a list", `command = concat(["cmd", "/c", "type"], param.files)`, `param.files`, "cmd joins this argument"},
		{"cmd's message names -File", `command = ["cmd", "/c", "echo ${param.text}"]`, `"echo ${param.text}"`, `"-File", "script.ps1", "-Name", param.x]`},
		// PowerShell's switches, as it reads them.
		{"pwsh -Command in mixed case", `command = ["pwsh", "-CoMmAnD", "Get-Item ${param.text}"]`, `"Get-Item ${param.text}"`, "pwsh runs with -CoMmAnD"},
		{"pwsh with an en dash", `command = ["pwsh", "\u2013Command", "Get-Item ${param.text}"]`, `"Get-Item ${param.text}"`, "pwsh runs with"},
		{"pwsh with an em dash and --", `command = ["pwsh", "\u2014-c", "Get-Item ${param.text}"]`, `"Get-Item ${param.text}"`, "pwsh runs with"},
		{"pwsh with spaces around the switch", `command = ["pwsh", " -c ", "Get-Item ${param.text}"]`, `"Get-Item ${param.text}"`, "pwsh runs with"},
		{"powershell /EncodedCommand", `command = ["powershell", "/EncodedCommand", upper(param.text)]`, `upper(param.text)`, "powershell runs with /EncodedCommand"},
		{"powershell -en", `command = ["powershell", "-en", upper(param.text)]`, `upper(param.text)`, "powershell runs with -en"},
		{"pwsh -Command after -i, a switch without a value", `command = ["pwsh", "-i", "-Command", "Get-Item ${param.text}"]`, `"Get-Item ${param.text}"`, "pwsh runs with -Command"},
		{"powershell's first operand after /wd and its value", `command = ["powershell", "/wd", "C:\\work", "-NoLogo", "Get-Item ${param.text}"]`, `"Get-Item ${param.text}"`, "read as -Command text"},
		{"pwsh -c joins a list after it", `command = concat(["pwsh", "-NoProfile", "-c", "Get-Item"], param.files)`, `param.files`, "joins the items of this list"},
		{"pwsh with a switch the caller chooses", `command = ["pwsh", "-NoProfile", param.opt, "Get-Item ${param.text}"]`, `"Get-Item ${param.text}"`, "should the flag before it, which the caller chooses, be -c"},
		{"pwsh's message names -File and $env", `command = ["pwsh", "-c", "Get-Item ${param.text}"]`, `"Get-Item ${param.text}"`, `env = { NAME = param.x } with $env:NAME`},
		// Windows PowerShell reads its first operand as -Command text.
		{"powershell's first operand", `command = ["powershell", "-NoProfile", "Get-Item ${param.text}"]`, `"Get-Item ${param.text}"`, "read as -Command text without -File"},
		{"powershell.exe's operands joined", `command = ["powershell.exe", "-ExecutionPolicy", "Bypass", "Get-Item", param.text]`, `param.text`, "read as -Command text without -File"},
		{"powershell's script without -File", `command = ["powershell", "-NoProfile", "script.ps1", param.text]`, `param.text`, "read as -Command text"},
		{"powershell's operand made of a parameter", `command = ["powershell", "${param.text}.ps1"]`, `"${param.text}.ps1"`, "read as -Command text"},
		{"powershell's operands in a list", `command = concat(["powershell", "Get-Item"], param.files)`, `param.files`, "joins the items of this list"},
		// Programs that run code their arguments give.
		{"mshta javascript:", `command = ["mshta", "javascript:${param.text}"]`, `"javascript:${param.text}"`, "mshta joins this argument with the others into the URL"},
		{"mshta after an application", `command = ["mshta", "app.hta", param.text]`, `param.text`, "mshta joins"},
		{"rundll32", `command = ["rundll32.exe", "shell32.dll,ShellExec_RunDLL", param.text]`, `param.text`, "rundll32.exe joins this argument with the others into the DLL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, errs := scriptErrors(t, f, tt.body)
			scriptRefused(t, src, errs, tt.subject, tt.detail)
		})
	}
}

// TestExecWindowsProgramsAllowed: the safe ways to give a Windows
// program a value stay accepted: a PowerShell script's parameter after
// -File, an environment variable, a parameter that is all the command,
// script hosts whose arguments are values.
func TestExecWindowsProgramsAllowed(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	scriptAccepted(t, f, []string{
		`command = ["pwsh", "-NoProfile", "-File", "script.ps1", "-Name", param.text]`,
		`command = ["powershell", "-NoProfile", "-ExecutionPolicy", "Bypass", "-File", "script.ps1", "-Name", param.text]`,
		`command = ["powershell.exe", "-NoProfile", "-fi", "C:\\tools\\script.ps1", param.text, "${param.a}.txt"]`,
		`command = ["pwsh", "-File", "script.ps1", param.opt, "${param.text}.txt"]`,
		`command = ["powershell", "/ExecutionPolicy", "Bypass", "-File", "script.ps1", param.text]`,
		`command = ["powershell", "-ex", "Bypass", "--NoProfile", "–File", "script.ps1", "-Name", param.text]`,
		`command = ["pwsh", "-NoProfile", "-Command", "Get-Item -LiteralPath $env:NAME"]` + "\nenv = { NAME = param.text }",
		`command = ["powershell", "-NoProfile", "-Command", param.text]`,
		`command = ["powershell", param.text]`,
		`command = ["cmd", "/c", param.text]`,
		`command = ["cmd", "/d/c", param.text]`,
		`command = ["where.exe", param.text]`,
		`command = ["cscript", "//NoLogo", "script.vbs", param.text]`,
		`command = ["wscript.exe", "script.js", param.text]`,
		`command = ["mshta", "C:\\tools\\app.hta"]`,
		`command = ["git", "add", "--", "build.cmd", param.text]`,
		`command = ["deploy.bat", "--fixed"]` + "\nenv = { NAME = param.text }",
	})
}

// TestExecBatchProgram: the names Windows runs through cmd.exe.
func TestExecBatchProgram(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"deploy.bat", true}, {"deploy.cmd", true}, {"DEPLOY.BAT", true}, {"Deploy.Cmd", true},
		{`C:\scripts\deploy.cmd`, true}, {"C:/scripts/deploy.bat", true}, {`\\server\share\run.bat`, true},
		{"deploy.bat.", true}, {"deploy.cmd ", true}, {"deploy.bat. . ", true}, {"deploy.bat::$DATA", true}, {"deploy.cmd::$data.", true},
		{"deploy", false}, {"deploy.exe", false}, {"deploy.bat.exe", false}, {"deploy.ps1", false}, {"bat", false}, {".bat/x", false},
		{"cmd", false}, {"cmd.exe", false}, {"notes.cmd.txt", false}, {"", false},
	} {
		if got := batchProgram(tt.path); got != tt.want {
			t.Errorf("batchProgram(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

// TestExecBatchParams: a parameter or an answer passed to a batch file is
// refused at load, however the file's name is spelled and the list is
// built; a batch file with fixed arguments is accepted (see
// TestExecWindowsProgramsAllowed).
func TestExecBatchParams(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	f.answers = map[string]cty.Type{"a": cty.String}
	tests := []struct{ name, body, subject, detail string }{
		{"a .bat", `command = ["deploy.bat", param.text]`, `param.text`, `parameter "text"`},
		{"a .cmd through its path, upper case", `command = ["C:\\scripts\\DEPLOY.CMD", "--name", "${param.text}"]`, `"${param.text}"`, "which Windows runs through cmd.exe"},
		{"a trailing dot", `command = ["deploy.bat.", param.text]`, `param.text`, "no quoting survives"},
		{"an answer", `command = ["deploy.cmd", answer.a]`, `answer.a`, `the ask form's answer "a"`},
		{"a list parameter", `command = concat(["deploy.cmd", "--"], param.files)`, `param.files`, `parameter "files"`},
		{"the message says what to do", `command = ["deploy.bat", param.text]`, `param.text`, `"-File", "script.ps1", "-Name", param.x]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src, errs := scriptErrors(t, f, tt.body)
			oneRefusal(t, src, errs, "Parameter passed to a batch file", tt.subject, tt.detail)
		})
	}
}

// TestExecCheckBatch: at a call, a program found as a batch file (as
// PATHEXT finds deploy.cmd for deploy) is refused when the command passes
// it a parameter or an answer, with an argument refusal.
func TestExecCheckBatch(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	f.answers = map[string]cty.Type{"a": cty.String}
	tests := []struct {
		name, body, path string
		want             string // "" when accepted
	}{
		{"a parameter", `command = ["deploy", param.text]`, `C:\tools\deploy.CMD`, `passes it parameter "text"`},
		{"two parameters", `command = ["deploy", param.text, "${param.a}.txt"]`, `C:\tools\deploy.bat`, `parameters "a", "text"`},
		{"an answer", `command = ["deploy", answer.a]`, `C:\tools\deploy.cmd`, `the ask form's answer "a"`},
		{"a list parameter", `command = concat(["deploy"], param.files)`, `C:\tools\deploy.cmd.`, `parameter "files"`},
		{"fixed arguments", `command = ["deploy", "--all"]`, `C:\tools\deploy.cmd`, ""},
		{"a program", `command = ["deploy", param.text]`, `C:\tools\deploy.exe`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := f.mustCompile(t, tt.body)
			err := e.checkBatch(tt.path)
			var refusal *argRefusal
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("checkBatch = %v, want nil", err)
			case tt.want == "":
			case !errors.As(err, &refusal):
				t.Fatalf("checkBatch = %v, want an argument refusal", err)
			case !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "batch file"):
				t.Errorf("checkBatch = %q, want it to say %q", err, tt.want)
			}
		})
	}
}

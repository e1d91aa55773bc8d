package setup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testconfig"
)

// env is a fake environment of the given variables.
func env(vars ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(vars); i += 2 {
		m[vars[i]] = vars[i+1]
	}
	return func(k string) string { return m[k] }
}

// fakeDirs lists packages in dir, and claude_desktop_config.json in the
// Claude directory of those whose name ends in +config (dropped).
func fakeDirs(dir string, packages ...string) func(string) []string {
	return func(d string) []string {
		var names []string
		for _, p := range packages {
			name, config := strings.CutSuffix(p, "+config")
			if d == dir {
				names = append(names, name)
			}
			if config && d == dir+`\`+name+`\LocalCache\Roaming\Claude` {
				names = append(names, "claude_desktop_config.json")
			}
		}
		return names
	}
}

// TestFile resolves each editor's config file for each system's layout
// from a fake home and environment: the places the editors' documentation
// gives, and the environment variables that move them.
func TestFile(t *testing.T) {
	mac := Place{GOOS: "darwin", Home: "/Users/me", Dir: "/Users/me/src/app"}
	linux := Place{GOOS: "linux", Home: "/home/me", Dir: "/home/me/src/app"}
	win := Place{GOOS: "windows", Home: `C:\Users\me`, Dir: `D:\src\app`, Getenv: env("APPDATA", `C:\Users\me\AppData\Roaming`)}
	with := func(p Place, vars ...string) Place { p.Getenv = env(vars...); return p }
	// msix is Windows with the packages given in LOCALAPPDATA\Packages; a
	// name ending in +config has a claude_desktop_config.json.
	msix := func(packages ...string) Place {
		p := with(win, "APPDATA", `C:\Users\me\AppData\Roaming`, "LOCALAPPDATA", `C:\Users\me\AppData\Local`)
		p.ReadDir = fakeDirs(`C:\Users\me\AppData\Local\Packages`, packages...)
		return p
	}
	tests := []struct {
		name   string
		editor string
		place  Place
		user   bool
		want   string
	}{
		{"claude-desktop macOS", "claude-desktop", mac, false, "/Users/me/Library/Application Support/Claude/claude_desktop_config.json"},
		{"claude-desktop Windows", "claude-desktop", win, false, `C:\Users\me\AppData\Roaming\Claude\claude_desktop_config.json`},
		{"claude-desktop Windows, APPDATA elsewhere", "claude-desktop", with(win, "APPDATA", `E:\roaming\`), false, `E:\roaming\Claude\claude_desktop_config.json`},
		{"claude-desktop Windows without APPDATA", "claude-desktop", with(win), false, `C:\Users\me\AppData\Roaming\Claude\claude_desktop_config.json`},
		{"claude-desktop Windows package", "claude-desktop", msix("Claude_pzs8sxrjxfjjc"), false, `C:\Users\me\AppData\Local\Packages\Claude_pzs8sxrjxfjjc\LocalCache\Roaming\Claude\claude_desktop_config.json`},
		{"claude-desktop Windows, two packages, one with a config", "claude-desktop", msix("Claude_old", "Claude_new+config"), false, `C:\Users\me\AppData\Local\Packages\Claude_new\LocalCache\Roaming\Claude\claude_desktop_config.json`},
		{"claude-desktop Windows, other packages only", "claude-desktop", msix("Microsoft.WindowsTerminal_8wekyb3d8bbwe"), false, `C:\Users\me\AppData\Roaming\Claude\claude_desktop_config.json`},
		{"claude-desktop Linux", "claude-desktop", linux, false, "/home/me/.config/Claude/claude_desktop_config.json"},
		{"claude-desktop Linux, XDG_CONFIG_HOME", "claude-desktop", with(linux, "XDG_CONFIG_HOME", "/xdg/conf"), false, "/xdg/conf/Claude/claude_desktop_config.json"},
		{"claude-desktop Linux, relative XDG_CONFIG_HOME ignored", "claude-desktop", with(linux, "XDG_CONFIG_HOME", "conf"), false, "/home/me/.config/Claude/claude_desktop_config.json"},
		{"cursor macOS", "cursor", mac, false, "/Users/me/.cursor/mcp.json"},
		{"cursor Windows", "cursor", win, false, `C:\Users\me\.cursor\mcp.json`},
		{"cursor Linux", "cursor", linux, false, "/home/me/.cursor/mcp.json"},
		{"vscode workspace macOS", "vscode", mac, false, "/Users/me/src/app/.vscode/mcp.json"},
		{"vscode workspace Windows", "vscode", win, false, `D:\src\app\.vscode\mcp.json`},
		{"vscode workspace Linux", "vscode", linux, false, "/home/me/src/app/.vscode/mcp.json"},
		{"vscode user macOS", "vscode", mac, true, "/Users/me/Library/Application Support/Code/User/mcp.json"},
		{"vscode user Windows", "vscode", win, true, `C:\Users\me\AppData\Roaming\Code\User\mcp.json`},
		{"vscode user Linux", "vscode", linux, true, "/home/me/.config/Code/User/mcp.json"},
		{"vscode user Linux, XDG_CONFIG_HOME", "vscode", with(linux, "XDG_CONFIG_HOME", "/xdg/conf/"), true, "/xdg/conf/Code/User/mcp.json"},
		{"claude-code macOS", "claude-code", mac, false, "/Users/me/.claude.json"},
		{"claude-code Windows", "claude-code", win, false, `C:\Users\me\.claude.json`},
		{"claude-code Linux", "claude-code", linux, false, "/home/me/.claude.json"},
		{"claude-code CLAUDE_CONFIG_DIR", "claude-code", with(linux, "CLAUDE_CONFIG_DIR", "/home/me/.claude-work"), false, "/home/me/.claude-work/.claude.json"},
		{"claude-code CLAUDE_CONFIG_DIR on Windows", "claude-code", with(win, "CLAUDE_CONFIG_DIR", `C:\claude`), false, `C:\claude\.claude.json`},
		{"windsurf macOS", "windsurf", mac, false, "/Users/me/.codeium/windsurf/mcp_config.json"},
		{"windsurf Windows", "windsurf", win, false, `C:\Users\me\.codeium\windsurf\mcp_config.json`},
		{"windsurf Linux", "windsurf", linux, false, "/home/me/.codeium/windsurf/mcp_config.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := editor(t, tt.editor).File(tt.place, tt.user)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestFileNoHome: without a home directory the error names the variable
// to set, per system.
func TestFileNoHome(t *testing.T) {
	tests := []struct {
		editor, goos, want string
	}{
		{"cursor", "linux", "set HOME"},
		{"claude-desktop", "darwin", "set HOME"},
		{"windsurf", "windows", "set USERPROFILE"},
		{"claude-desktop", "windows", "APPDATA is not set, and cannot find your home directory: set USERPROFILE"},
	}
	for _, tt := range tests {
		t.Run(tt.editor+" "+tt.goos, func(t *testing.T) {
			_, err := editor(t, tt.editor).File(Place{GOOS: tt.goos}, false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to say %q", err, tt.want)
			}
		})
	}
}

// TestFileSeveralPackages: of several Claude Desktop packages, none with a
// config file, setup cannot tell which runs, and says how to find out.
func TestFileSeveralPackages(t *testing.T) {
	p := Place{GOOS: "windows", Home: `C:\Users\me`, Getenv: env("LOCALAPPDATA", `C:\Users\me\AppData\Local`),
		ReadDir: fakeDirs(`C:\Users\me\AppData\Local\Packages`, "Claude_a", "Claude_b")}
	_, err := editor(t, "claude-desktop").File(p, false)
	want := `there are several Claude Desktop packages in C:\Users\me\AppData\Local\Packages, and setup cannot tell which one runs: Get-AppxPackage Claude*`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want it to start with %q", err, want)
	}
}

// TestServer checks the entries: absolute paths as JSON strings (a
// Windows path's backslashes escaped), "type" where the editor wants it,
// and npx through cmd /c on Windows.
func TestServer(t *testing.T) {
	tests := []struct {
		name   string
		server Server
		want   string
	}{
		{"binary, cursor", BinaryServer(editor(t, "cursor"), "/usr/local/bin/toolhost", "/home/me/tools.hcl"),
			`{"command":"/usr/local/bin/toolhost","args":["serve","/home/me/tools.hcl"]}`},
		{"binary, vscode", BinaryServer(editor(t, "vscode"), "/usr/local/bin/toolhost", "/home/me/tools.hcl"),
			`{"type":"stdio","command":"/usr/local/bin/toolhost","args":["serve","/home/me/tools.hcl"]}`},
		{"binary on Windows, claude-code", BinaryServer(editor(t, "claude-code"), `C:\Users\me\go\bin\toolhost.exe`, `C:\Users\me\tools.hcl`),
			`{"type":"stdio","command":"C:\\Users\\me\\go\\bin\\toolhost.exe","args":["serve","C:\\Users\\me\\tools.hcl"]}`},
		{"npx, windsurf", must(NPXServer(editor(t, "windsurf"), "darwin", "/Users/me/tools.hcl")),
			`{"command":"npx","args":["-y","toolhost","serve","/Users/me/tools.hcl"]}`},
		{"npx on Windows, claude-desktop", must(NPXServer(editor(t, "claude-desktop"), "windows", `C:\Users\me\tools.hcl`)),
			`{"command":"cmd","args":["/c","npx","-y","toolhost","serve","C:\\Users\\me\\tools.hcl"]}`},
		{"binary with a log file", must(BinaryServer(editor(t, "cursor"), "/usr/local/bin/toolhost", "/home/me/tools.hcl").WithLogFile("/home/me/logs/toolhost.log")),
			`{"command":"/usr/local/bin/toolhost","args":["serve","/home/me/tools.hcl","--log-file","/home/me/logs/toolhost.log"]}`},
		{"npx on Windows with a log file", must(must(NPXServer(editor(t, "claude-desktop"), "windows", `C:\Users\me\tools.hcl`)).WithLogFile(`C:\Users\me\toolhost.log`)),
			`{"command":"cmd","args":["/c","npx","-y","toolhost","serve","C:\\Users\\me\\tools.hcl","--log-file","C:\\Users\\me\\toolhost.log"]}`},
		{"characters HTML escapes are kept", BinaryServer(editor(t, "cursor"), "/opt/a&b/toolhost", "/home/me/<x>.hcl"),
			`{"command":"/opt/a&b/toolhost","args":["serve","/home/me/<x>.hcl"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(tt.server.marshal("", ""))
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			var back Server
			if err := json.Unmarshal([]byte(got), &back); err != nil || !reflect.DeepEqual(back, tt.server) {
				t.Errorf("does not read back: %v, %+v", err, back)
			}
		})
	}
}

func TestIsGoRunBuild(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"/tmp/go-build1234567/b001/exe/toolhost", true},
		{`C:\Users\me\AppData\Local\Temp\go-build99\b001\exe\toolhost.exe`, runtime.GOOS == "windows"},
		{"/usr/local/bin/toolhost", false},
		{"/home/me/exe/toolhost", false},
		{"/home/me/go-build/bin/toolhost", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := isGoRunBuild(tt.path); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestBinary: the test binary is an executable at an absolute path.
func TestBinary(t *testing.T) {
	path, _, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(path) {
		t.Errorf("%s is not absolute", path)
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
}

func TestConfig(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("tools.hcl", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Config("tools.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.Abs("tools.hcl"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	_, err = Config("nope.hcl")
	if want, _ := filepath.Abs("nope.hcl"); err == nil || !strings.Contains(err.Error(), "there is no file or directory at "+want) {
		t.Errorf("error %v, want it to name %s", err, want)
	}
}

// TestBinaryPrefersPathLink: when the executable is reached through a
// link on PATH (as a package manager installs it), the entry names the
// link, which outlives an upgrade, not the file it leads to.
func TestBinaryPrefersPathLink(t *testing.T) {
	if testconfig.UnderWine() {
		t.Skip("wine cannot make symbolic links")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	link := filepath.Join(bin, filepath.Base(real))
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("cannot make a symbolic link here: %v", err)
	}
	t.Setenv("PATH", bin)
	got, _, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	if got != link {
		t.Errorf("got %s, want the link on PATH, %s", got, link)
	}
}

// must is s, failing the test on err.
func must(s Server, err error) Server {
	if err != nil {
		panic(err)
	}
	return s
}

// TestNPXServerRefusesCmdCharacters: on Windows cmd.exe runs npx and reads
// the config's path again, so that a path with & or % would run or expand
// something else; elsewhere such a path is only an argument.
func TestNPXServerRefusesCmdCharacters(t *testing.T) {
	e := editor(t, "cursor")
	for _, tc := range []struct {
		goos, config string
		refused      bool
	}{
		{"windows", `C:\Users\me\tools.hcl`, false},
		{"windows", `C:\R&D\tools.hcl`, true},
		{"windows", `C:\Users\%USERNAME%\tools.hcl`, true},
		{"windows", `C:\Program Files (x86)\tools\tools.hcl`, true},
		{"windows", `C:\a^b\tools.hcl`, true},
		{"linux", `/home/me/R&D (old)/tools.hcl`, false},
		{"darwin", `/Users/me/100%/tools.hcl`, false},
	} {
		t.Run(tc.goos+" "+tc.config, func(t *testing.T) {
			s, err := NPXServer(e, tc.goos, tc.config)
			if tc.refused {
				if err == nil || !strings.Contains(err.Error(), "leave out --npx") {
					t.Fatalf("got %+v, %v; want it refused, saying to leave out --npx", s, err)
				}
				return
			}
			if err != nil || s.Args[len(s.Args)-1] != tc.config {
				t.Fatalf("got %+v, %v; want the config as the last argument", s, err)
			}
		})
	}
}

// TestWithLogFileRefusesCmdCharacters: through cmd.exe, a log file's path
// with a character of cmd's own is refused, as a config's is; elsewhere
// it is kept as it is.
func TestWithLogFileRefusesCmdCharacters(t *testing.T) {
	e := editor(t, "cursor")
	for _, tc := range []struct {
		name    string
		server  Server
		path    string
		refused bool
	}{
		{"npx on Windows", must(NPXServer(e, "windows", `C:\Users\me\tools.hcl`)), `C:\R&D\toolhost.log`, true},
		{"npx on Windows, a plain path", must(NPXServer(e, "windows", `C:\Users\me\tools.hcl`)), `C:\Users\me\toolhost.log`, false},
		{"the binary on Windows", BinaryServer(e, `C:\toolhost.exe`, `C:\tools.hcl`), `C:\R&D\toolhost.log`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.server.WithLogFile(tc.path)
			if tc.refused {
				if err == nil || !strings.Contains(err.Error(), "leave out --npx") {
					t.Fatalf("got %+v, %v; want it refused, saying to leave out --npx", s, err)
				}
				return
			}
			if err != nil || s.Args[len(s.Args)-1] != tc.path {
				t.Fatalf("got %+v, %v; want the path as the last argument", s, err)
			}
		})
	}
}

// TestInNPXCache: a binary under npx's cache (npm's _npx folder) is told
// from an installed one.
func TestInNPXCache(t *testing.T) {
	for path, want := range map[string]bool{
		"/home/me/.npm/_npx/69bb49f1bd0a2b0a/node_modules/@toolhost/linux-x64/bin/toolhost":               true,
		`C:\Users\me\AppData\Local\npm-cache\_npx\1a2b\node_modules\@toolhost\win32-x64\bin\toolhost.exe`: true,
		"/usr/local/lib/node_modules/toolhost/bin/toolhost":                                               false,
		"/home/me/_npxlike/toolhost": false,
		"/usr/local/bin/toolhost":    false,
	} {
		if got := inNPXCache(filepath.FromSlash(strings.ReplaceAll(path, `\`, "/"))); got != want {
			t.Errorf("inNPXCache(%s) = %v, want %v", path, got, want)
		}
	}
}

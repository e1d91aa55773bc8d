package exec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecResolveProgramPathExt: a program name without an extension of
// PATHEXT tries each of them, on the PATH (whatever the case of its name)
// or relative to the config file's directory, never in the working
// directory.
func TestExecResolveProgramPathExt(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	bin := t.TempDir()
	for _, name := range []string{
		filepath.Join(bin, "tool.exe"), filepath.Join(bin, "tool.txt"), filepath.Join(bin, "script.bat"),
		filepath.Join(bin, "noext"), filepath.Join(base, "sub", "local.exe"), filepath.Join(base, "here.exe"),
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte("MZ"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(base, "dir.exe"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		prog string
		env  []string
		want string // a path, or the error
	}{
		{"extension added", "tool", []string{"PATH=" + bin}, filepath.Join(bin, "tool.exe")},
		{"extension given", "tool.exe", []string{"PATH=" + bin}, filepath.Join(bin, "tool.exe")},
		{"Path in any case", "tool", []string{"Path=" + bin}, filepath.Join(bin, "tool.exe")},
		{"an extension not in PATHEXT", "tool.txt", []string{"PATH=" + bin}, `command "tool.txt" not found on PATH`},
		{"the next extension", "script", []string{"PATH=" + bin}, filepath.Join(bin, "script.bat")},
		{"PATHEXT of the environment", "script", []string{"PATH=" + bin, "PathExt=.EXE"}, `command "script" not found on PATH`},
		{"no extension", "noext", []string{"PATH=" + bin}, `command "noext" not found on PATH`},
		{"relative PATH entries skipped", "here", []string{"PATH=.;sub"}, `command "here" not found on PATH`},
		{"backslash: config directory", `sub\local`, nil, filepath.Join(base, "sub", "local.exe")},
		{"slash: config directory", "sub/local.exe", nil, filepath.Join(base, "sub", "local.exe")},
		{"rooted: config directory's drive", filepath.Join(base, "here")[len(filepath.VolumeName(base)):], nil, filepath.Join(base, "here.exe")},
		{"absolute", filepath.Join(bin, "tool"), nil, filepath.Join(bin, "tool.exe")},
		{"a directory", `.\dir.exe`, nil, `command ".\\dir.exe" is not an executable file`},
		{"missing", `.\missing`, nil, `command ".\\missing" not found`},
		{"drive without a root", "C:tool", nil, `command "C:tool" names a drive without a directory, which Windows reads relative to that drive's working directory; write the full path (C:\...)`},
	}
	e := &Exec{baseDir: base}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.resolveProgram(tt.prog, tt.env)
			if err != nil {
				got = err.Error()
			}
			if !strings.EqualFold(got, tt.want) {
				t.Errorf("resolveProgram(%q) = %q, want %q", tt.prog, got, tt.want)
			}
		})
	}
}

// TestExecMinimalEnv: without inherit_env a command gets what Windows
// programs need to start, and nothing else of the host's, whatever the
// case of the names.
func TestExecMinimalEnv(t *testing.T) {
	t.Setenv("TOOLHOST_TEST_SECRET", "hidden")
	t.Setenv("LocalAppData", `C:\local`)
	for _, name := range []string{"SystemRoot", "TEMP", "PATH", "PATHEXT"} {
		if os.Getenv(name) == "" {
			t.Fatalf("the host has no %s", name)
		}
	}
	f := defaultFixture()
	e := f.mustCompile(t, helperCommand("env"))
	out, err := f.call(t, context.Background(), e, nil)
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out.Body)), "\n") {
		if k, v, ok := strings.Cut(strings.TrimRight(line, "\r"), "="); ok && k != "" {
			got[strings.ToUpper(k)] = v
		}
	}
	for _, name := range []string{"SYSTEMROOT", "TEMP", "PATH", "PATHEXT", "LOCALAPPDATA", strings.ToUpper(helperEnv)} {
		if got[name] == "" {
			t.Errorf("the command's environment has no %s: %v", name, got)
		}
	}
	if v, ok := got["TOOLHOST_TEST_SECRET"]; ok {
		t.Errorf("the command got TOOLHOST_TEST_SECRET=%s", v)
	}
}

// TestExecEnvNamesIgnoreCase: a variable the tool's env sets or removes
// replaces the host's of the same name in any case.
func TestExecEnvNamesIgnoreCase(t *testing.T) {
	t.Setenv("PATH", `C:\host`)
	t.Setenv("TEMP", `C:\hosttemp`)
	tests := []struct {
		name string
		env  string
		want []string // the entries whose names are PATH or TEMP
	}{
		{"set", `{ Path = "C:\\mine", temp = "C:\\t" }`, []string{`Path=C:\mine`, `temp=C:\t`}},
		{"removed", `{ path = null, Temp = null }`, []string{"PATH=" + defaultPath}},
		{"host's", `{ OTHER = "x" }`, []string{`PATH=C:\host`, `TEMP=C:\hosttemp`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := defaultFixture()
			e := f.mustCompile(t, `command = ["C:\\x.exe"]`+"\nenv = "+tt.env)
			env, err := e.buildEnv(nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, kv := range env {
				if k, _, _ := strings.Cut(kv, "="); strings.EqualFold(k, "PATH") || strings.EqualFold(k, "TEMP") {
					got = append(got, kv)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("env = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestExecOutputCapture: a command's output is its result, cut at
// max_output.
func TestExecOutputCapture(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		n         string
		extra     string
		wantLen   int
		truncated bool
	}{
		{"whole", "3000", "", 3000, false},
		{"cut at max_output", "300000", "\nmax_output = 1000", 1000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := defaultFixture()
			e := f.mustCompile(t, helperCommand("repeat", `"`+tt.n+`"`, `"x"`)+tt.extra)
			out, err := f.call(t, context.Background(), e, nil)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if len(out.Body) != tt.wantLen || strings.Trim(string(out.Body), "x") != "" || out.Truncated != tt.truncated {
				t.Errorf("output of %d bytes, truncated %v; want %d bytes of x, truncated %v", len(out.Body), out.Truncated, tt.wantLen, tt.truncated)
			}
		})
	}
}

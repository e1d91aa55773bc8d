package hcl

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestLimitSyntaxErrors checks that a file's syntax errors past the first
// MaxSyntaxErrors become one error that counts them and points at the
// first of them, and that fewer are left alone.
func TestLimitSyntaxErrors(t *testing.T) {
	diag := func(sev hcl.DiagnosticSeverity, line int) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: sev, Summary: "Invalid multi-line string",
			Subject: &hcl.Range{Filename: "t.hcl", Start: hcl.Pos{Line: line, Column: 1}, End: hcl.Pos{Line: line, Column: 2}}}
	}
	many := func(errs, warns int) hcl.Diagnostics {
		var ds hcl.Diagnostics
		for i := range errs {
			ds = append(ds, diag(hcl.DiagError, i+1))
		}
		for i := range warns {
			ds = append(ds, diag(hcl.DiagWarning, errs+i+1))
		}
		return ds
	}
	for _, tc := range []struct {
		name    string
		in      hcl.Diagnostics
		wantLen int
		detail  string // of the last diagnostic, when limited
		sev     hcl.DiagnosticSeverity
	}{
		{"none", nil, 0, "", 0},
		{"ten", many(10, 0), 10, "", 0},
		{"eleven, all shown rather than one counted", many(11, 0), 11, "", 0},
		{"twelve", many(12, 0), 11, "t.hcl has 2 more syntax errors, from here on,", hcl.DiagError},
		{"seventeen thousand", many(17000, 0), 11, "t.hcl has 16990 more syntax errors, from here on,", hcl.DiagError},
		{"errors and warnings", many(15, 3), 11, "t.hcl has 5 more syntax errors and 3 warnings, from here on,", hcl.DiagError},
		{"one of each", many(12, 1), 11, "t.hcl has 2 more syntax errors and 1 warning, from here on,", hcl.DiagError},
		{"one error and a warning", many(11, 1), 11, "t.hcl has 1 more syntax error and 1 warning, from here on,", hcl.DiagError},
		{"warnings only past the limit", many(10, 5), 11, "t.hcl has 5 more syntax warnings, from here on,", hcl.DiagWarning},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := LimitSyntaxErrors("t.hcl", tc.in)
			if len(got) != tc.wantLen {
				t.Fatalf("%d diagnostics, want %d", len(got), tc.wantLen)
			}
			if tc.detail == "" {
				if len(got) > 0 && got[len(got)-1] != tc.in[len(tc.in)-1] {
					t.Error("the diagnostics were changed")
				}
				return
			}
			last := got[len(got)-1]
			if !strings.HasPrefix(last.Detail, tc.detail) || last.Severity != tc.sev {
				t.Errorf("last: %v %q, want %v and a detail starting %q", last.Severity, last.Detail, tc.sev, tc.detail)
			}
			if last.Subject == nil || last.Subject.Start.Line != MaxSyntaxErrors+1 {
				t.Errorf("last subject %v, want the first error not shown (line %d)", last.Subject, MaxSyntaxErrors+1)
			}
			for i := range MaxSyntaxErrors {
				if got[i] != tc.in[i] {
					t.Errorf("diagnostic %d is not the original's %d", i, i)
				}
			}
		})
	}
}

// TestExplainLoneCR loads files with carriage returns that no line feed
// follows: HCL's "Invalid character" at each becomes one error that names
// the cause, the line and the fix, and every other diagnostic is kept, in
// its place. A file with no line feed at all is an error even when HCL
// reads it as one comment; a lone CR in a comment, or in a JSON file, is
// left alone.
func TestExplainLoneCR(t *testing.T) {
	tool := func(name string) string {
		return fmt.Sprintf("tool %q {\n  description = \"x\"\n  template {\n    text = \"hi\"\n  }\n}\n", name)
	}
	lonely := func(s string) string { return strings.ReplaceAll(s, "\n", "\r") }
	classic := lonely(tool("a") + tool("b"))
	stray := tool("a") + strings.Replace(tool("b"), "\"hi\"\n", "\"hi\"\r", 1)
	twoStray := strings.Replace(stray, "\"x\"\n", "\"x\"\r", 1)
	lineStart := strings.Replace(tool("a"), "\n  template", "\n\r  template", 1)
	inComment := "# from an old Mac\r# notes\n" + strings.Replace(tool("a"), "\"x\"\n", "\"x\"\r", 1)
	crlf := strings.ReplaceAll(tool("a"), "\n", "\r\n")
	unclosed := tool("a") + "tool \"b\" {\n  description = \"x\n}\n" + "c = 1\r"
	const explainedSummary = "Carriage return without line feed"
	for _, tc := range []struct {
		name, file, src string
		want            []string // the summaries, in order
		at              [2]int   // the subject's start: line and byte; classic files: the first line
		detail          []string // in the explanation's detail
	}{
		{"classic Mac OS line ends", "tools.hcl", classic, []string{explainedSummary}, [2]int{1, 0},
			[]string{"ends its lines with a carriage return (CR) alone", `tr '\r' '\n' < `}},
		{"classic, read by HCL as one comment", "tools.hcl", lonely("# my tools\n" + tool("a")), []string{explainedSummary}, [2]int{1, 0},
			[]string{"ends its lines with a carriage return (CR) alone"}},
		{"stray CR", "tools.hcl", stray, []string{explainedSummary}, [2]int{10, strings.Index(stray, "\r")},
			[]string{"Line 10 of ", "has a carriage return (CR) that no line feed (LF) follows, where the caret points", "Remove it"}},
		{"two stray CRs", "tools.hcl", twoStray, []string{explainedSummary}, [2]int{2, strings.Index(twoStray, "\r")},
			[]string{"Line 2 of ", "The file has 2 carriage returns without a line feed."}},
		{"a CR that starts a line", "tools.hcl", lineStart, []string{explainedSummary}, [2]int{3, strings.Index(lineStart, "\r")},
			[]string{"Line 3 of "}},
		// The parser reads the first CR as part of the comment, and
		// counts no line at it.
		{"a CR in a comment first", "tools.hcl", inComment, []string{explainedSummary}, [2]int{3, strings.LastIndex(inComment, "\r")},
			[]string{"Line 3 of ", "The file has 2 carriage returns"}},
		{"CRLF line ends", "tools.hcl", crlf, nil, [2]int{}, nil},
		{"JSON, a CR as whitespace", "tools.hcl.json", "{\"tool\": {\"a\": {\"description\": \"x\",\r\"template\": {\"text\": \"hi\"}}}}", nil, [2]int{}, nil},
		{"another error kept", "tools.hcl", unclosed, []string{"String without closing quote", explainedSummary}, [2]int{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, diags := Load([]string{path}, nil)
			var got []string
			for _, d := range diags {
				got = append(got, d.Summary)
			}
			// An unclosed string makes HCL report more after it: the
			// first error is checked, and that the CR is explained once.
			if tc.name == "another error kept" {
				explained := 0
				for _, s := range got {
					if s == "Invalid character" {
						t.Errorf("an Invalid character is left: %q", got)
					}
					if s == tc.want[1] {
						explained++
					}
				}
				if len(got) < 2 || got[0] != tc.want[0] || explained != 1 {
					t.Errorf("summaries %q, want %q first and %q once", got, tc.want[0], tc.want[1])
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("summaries %q, want %q\n%s", got, tc.want, diags.Error())
			}
			if tc.want == nil {
				return
			}
			d := diags[0]
			s := d.Subject
			if s == nil || s.Filename != path || s.Start.Line != tc.at[0] || s.Start.Byte != tc.at[1] || s.End.Byte <= s.Start.Byte || s.End.Byte > len(tc.src) {
				t.Fatalf("subject %+v, want one that starts on line %d at byte %d", s, tc.at[0], tc.at[1])
			}
			if tc.at[1] > 0 && (tc.src[s.Start.Byte] != '\r' || s.End.Byte != s.Start.Byte+1) {
				t.Errorf("subject %+v, want the CR", s)
			}
			for _, want := range tc.detail {
				if !strings.Contains(d.Detail, want) {
					t.Errorf("detail %q lacks %q", d.Detail, want)
				}
			}
		})
	}
	// Only a CR after # or // on its line can be in a line comment: the
	// file is lexed again only then.
	for src, want := range map[string]bool{"a = 1\rb = 2\n": false, "a = \"x\" # c\rb\n": true, "a = 1 // c\r\n": false, "x\n// c\rb\n": true, "# c\na = 1\rb\n": false} {
		if got := crAfterCommentMark([]byte(src)); got != want {
			t.Errorf("crAfterCommentMark(%q) = %v, want %v", src, got, want)
		}
	}
	if got := shorten([]byte(strings.Repeat("é", 70)), 60); got != strings.Repeat("é", 60)+"…" {
		t.Errorf("shorten: %q", got)
	}
	// Control characters, which a terminal would act on, are not quoted.
	if got := shorten([]byte("\x1b]0;pwned\x07\u009b2J x = 1"), 60); got != "?]0;pwned??2J x = 1" {
		t.Errorf("shorten: %q", got)
	}
	// A relative name that starts with "-" is not an option to tr or mv.
	for in, want := range map[string]string{"-tools.hcl": "./-tools.hcl", "tools.hcl": "tools.hcl", "/a/-b.hcl": "/a/-b.hcl"} {
		if got, cmd := rewriteCommand("cat", in), "cat < "+want+" > "+want+".new && mv "+want+".new "+want; got != cmd {
			t.Errorf("rewriteCommand(cat, %q) = %q, want %q", in, got, cmd)
		}
	}
}

// TestExplainUTF16 loads a config saved in UTF-16, with and without a byte
// order mark, in both byte orders: HCL's errors at every other byte become
// one error that names the encoding and gives the commands that convert it.
// Text that only looks a little like UTF-16 keeps HCL's own errors.
func TestExplainUTF16(t *testing.T) {
	text := "tool \"a\" {\n  description = \"x\"\n  template {\n    text = \"hi\"\n  }\n}\n"
	utf16 := func(bom bool, bigEndian bool) string {
		var b []byte
		if bom {
			b = append(b, 0xFF, 0xFE)
		}
		for _, r := range text { // ASCII only
			b = append(b, byte(r), 0)
		}
		if bigEndian {
			for i := 0; i+1 < len(b); i += 2 {
				b[i], b[i+1] = b[i+1], b[i]
			}
		}
		return string(b)
	}
	for _, tc := range []struct {
		name, src string
		want      []string // in the detail; nil: not explained
	}{
		{"little-endian with BOM", utf16(true, false), []string{"(little-endian), as Windows PowerShell 5 writes", "Get-Content -Encoding Unicode -LiteralPath ", "iconv -f UTF-16LE -t UTF-8 < "}},
		{"big-endian with BOM", utf16(true, true), []string{"(big-endian); HCL files are UTF-8", "Get-Content -Encoding BigEndianUnicode -LiteralPath ", "iconv -f UTF-16BE -t UTF-8 < "}},
		{"little-endian without BOM", utf16(false, false), []string{"(little-endian)", "iconv -f UTF-16LE"}},
		{"big-endian without BOM", utf16(false, true), []string{"(big-endian)", "iconv -f UTF-16BE"}},
		{"UTF-32 little-endian", "\xFF\xFE\x00\x00t\x00\x00\x00", nil},
		{"a NUL in UTF-8 text", "a = \"x\x00y\"\nb = 1\nc = 2\nd = 3\n", nil},
		{"short", "a\x00", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tools.hcl")
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, diags := Load([]string{path}, nil)
			if !diags.HasErrors() {
				t.Fatal("no errors")
			}
			explained := len(diags) == 1 && diags[0].Summary == "Config file is UTF-16"
			if tc.want == nil {
				if explained {
					t.Fatalf("explained as UTF-16: %s", diags[0].Detail)
				}
				return
			}
			if !explained {
				t.Fatalf("not explained:\n%s", FormatDiagnostics(diags))
			}
			d := diags[0]
			for _, s := range append(tc.want, path+" is encoded in UTF-16") {
				if !strings.Contains(d.Detail, s) {
					t.Errorf("detail %q lacks %q", d.Detail, s)
				}
			}
			if d.Subject == nil || d.Subject.Filename != path || d.Subject.Start.Byte != 0 || d.Subject.End.Byte != 2 {
				t.Errorf("subject %+v, want the file's first two bytes", d.Subject)
			}
		})
	}
	for _, tc := range []struct{ in, want string }{
		{"tools.hcl", "tools.hcl"},
		{`C:\cfg\tools.hcl`, `C:\cfg\tools.hcl`},
		{"my tools.hcl", "'my tools.hcl'"},
		{"it's.hcl", "'it''s.hcl'"},
	} {
		if got := psQuote(tc.in); got != tc.want {
			t.Errorf("psQuote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestExplainUTF16AfterBOM: UTF-16 text after a UTF-8 byte order mark (in
// either byte order) is one error that points at the mark and gives the
// commands that convert the file (TestExplainUTF16AfterBOMConverts runs
// the iconv one).
func TestExplainUTF16AfterBOM(t *testing.T) {
	for _, order := range []string{"little-endian", "big-endian"} {
		t.Run(order, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "my tools.hcl")
			d := loadUTF16AfterBOM(t, path, order)
			if !strings.Contains(d.Detail, "encoded in UTF-16 ("+order+")") {
				t.Errorf("detail %q does not name the byte order %s", d.Detail, order)
			}
			if d.Subject == nil || d.Subject.Start.Byte != 0 || d.Subject.End.Byte != 3 || d.Subject.End.Column != 2 {
				t.Errorf("subject %+v, want the mark: bytes 0 to 3, one column", d.Subject)
			}
			if _, err := iconvCommand(d); err != nil {
				t.Error(err)
			}
			if !strings.Contains(d.Detail, "or in PowerShell, $p = (Resolve-Path -LiteralPath "+psQuote(path)+").Path") {
				t.Errorf("no PowerShell command for %s in %q", path, d.Detail)
			}
		})
	}
}

// utf16AfterBOMText is the config that loadUTF16AfterBOM writes in UTF-16.
const utf16AfterBOMText = "tool \"a\" {\n  description = \"x\"\n  template {\n    text = \"hi\"\n  }\n}\n"

// loadUTF16AfterBOM writes utf16AfterBOMText at path as a UTF-8 mark and
// then UTF-16 in order, loads it, and returns the one error it must give.
func loadUTF16AfterBOM(t *testing.T, path, order string) *hcl.Diagnostic {
	t.Helper()
	b := []byte("\xEF\xBB\xBF")
	for _, r := range utf16AfterBOMText {
		if order == "little-endian" {
			b = append(b, byte(r), 0)
		} else {
			b = append(b, 0, byte(r))
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := Load([]string{path}, nil)
	if len(diags) != 1 || diags[0].Summary != "Config file is UTF-16 after a UTF-8 mark" {
		t.Fatalf("want one error about the mark:\n%s", FormatDiagnostics(diags))
	}
	return diags[0]
}

// iconvCommand returns the shell command with iconv that d's detail gives.
func iconvCommand(d *hcl.Diagnostic) (string, error) {
	_, cmd, ok := strings.Cut(d.Detail, "with iconv, ")
	cmd, _, ok2 := strings.Cut(cmd, "; or in PowerShell")
	if !ok || !ok2 {
		return "", fmt.Errorf("no iconv command in %q", d.Detail)
	}
	return cmd, nil
}

// TestExplainFullWidth loads configs with the punctuation an input method
// for Chinese types unless switched to half-width: HCL's "Invalid
// character" gets a detail that names the character and the ASCII one to
// type. Curly quotes keep HCL's own explanation, and full-width text inside
// a string is just text.
func TestExplainFullWidth(t *testing.T) {
	tool := func(line string) string {
		return "tool \"a\" {\n" + line + "\n  template {\n    text = \"hi\"\n  }\n}\n"
	}
	for _, tc := range []struct {
		name, src string
		want      string // in the detail of the Invalid character error; "": the config is valid
	}{
		{"full-width equals", tool(`  description ＝ "x"`), `This is the full-width ＝ (U+FF1D), as an input method for Chinese, Japanese or Korean types it; HCL reads the ASCII "=" here.`},
		{"full-width comma", tool(`  annotations { read_only = true， }`), `(U+FF0C)`},
		// On a line of its own, the value is no text without quotes.
		{"full-width comma after a keyword", tool("  annotations {\n    read_only_hint = true，\n  }"), `(U+FF0C)`},
		{"ideographic space after a keyword", tool("  annotations {\n    read_only_hint = true\u3000false\n  }"), `This is an ideographic space (U+3000)`},
		{"ideographic space", tool("  description\u3000= \"x\""), `This is an ideographic space (U+3000)`},
		{"CJK bracket", tool(`  description = 【"x"]`), `HCL reads the ASCII "[" here.`},
		{"full-width apostrophe", tool(`  description = ＇x＇`), `HCL reads the ASCII double quote (") here.`},
		{"full-width digit", tool(`  description = "x"` + "\n  timeout = １"), `(U+FF11), as an input method for Chinese, Japanese or Korean types it; HCL reads the ASCII "1" here.`},
		{"full-width tilde", tool(`  description ～ "x"`), `(U+FF5E), as an input method for Chinese, Japanese or Korean types it; HCL reads only ASCII punctuation.`},
		{"curly quotes", tool(`  description = “x”`), `"Curly quotes" are not valid here.`},
		{"inside a string", tool(`  description = "百度热榜，实时＝更新　【热】"`), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, tc.src, nil)
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatalf("unexpected errors:\n%s", FormatDiagnostics(diags))
				}
				return
			}
			for i, d := range diags {
				if d.Summary == "Invalid character" {
					if !strings.Contains(d.Detail, tc.want) {
						t.Errorf("detail %q lacks %q", d.Detail, tc.want)
					}
					// What HCL made of the rest of the line is not said
					// before the character (or after it).
					if tc.name == "curly quotes" {
						return
					}
					for j, o := range diags {
						if j != i && o.Summary != "Invalid character" && o.Subject != nil && o.Subject.Start.Line == d.Subject.Start.Line {
							t.Errorf("another error on the line: %s: %s", o.Summary, o.Detail)
						}
					}
					return
				}
			}
			t.Fatalf("no Invalid character error:\n%s", FormatDiagnostics(diags))
		})
	}
}

// TestHiddenInComments: a lone CR in a line comment of a file with LFs
// hides the text after it from HCL, which reads it as part of the comment,
// while an editor shows it as config. That is an error pointing at the
// hidden text; a CR with only spaces after it, or in a block comment, is
// not.
func TestHiddenInComments(t *testing.T) {
	tool := func(name string) string {
		return fmt.Sprintf("tool %q {\n  description = \"x\"\n  template {\n    text = \"hi\"\n  }\n}\n", name)
	}
	hidden := tool("a") + "// second tool\r" + strings.ReplaceAll(tool("b"), "\n", "\r") + "\n"
	for _, tc := range []struct {
		name, src string
		tools     int    // when valid
		text      string // the hidden text the error points at
	}{
		{"a tool after a CR in a comment", hidden, 0, `tool "b" {`},
		{"after a #", strings.Replace(tool("a"), "  template {\n", "  # the template\r  template {\n", 1), 0, "template {"},
		{"a comment after the CR", strings.Replace(tool("a"), "  template {\n", "  # the template\r  # more\n  template {\n", 1), 1, ""},
		{"spaces after the CR", strings.Replace(tool("a"), "  template {\n", "  # the template\r  \n  template {\n", 1), 1, ""},
		{"a block comment after the CR", strings.Replace(tool("a"), "  template {\n", "  # the template\r  /* note */\n  template {\n", 1), 1, ""},
		{"a combining accent before the CR", strings.Replace(tool("a"), "  template {\n", "  # caf\u0065\u0301\rx = 1\n  template {\n", 1), 0, "x = 1"},
		{"in a block comment", strings.Replace(tool("a"), "  template {\n", "  /* the\rtemplate */\n  template {\n", 1), 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, diags := loadString(t, tc.src, nil)
			if tc.text == "" {
				if diags.HasErrors() || len(cfg.Tools) != tc.tools {
					t.Fatalf("%d tools, want %d:\n%s", len(cfg.Tools), tc.tools, FormatDiagnostics(diags))
				}
				return
			}
			var found *hcl.Diagnostic
			for _, d := range diags {
				if d.Summary == "Text hidden in a comment" {
					found = d
				}
			}
			if found == nil {
				t.Fatalf("no hidden-text error:\n%s", FormatDiagnostics(diags))
			}
			s := found.Subject
			if got := tc.src[s.Start.Byte:s.End.Byte]; got != tc.text {
				t.Errorf("subject covers %q, want %q", got, tc.text)
			}
			if !strings.Contains(found.Detail, "`"+tc.text+"` and what follows it are ignored") {
				t.Errorf("detail %q", found.Detail)
			}
			// The column counts characters as HCL does: a letter and its
			// combining accent are one.
			line := tc.src[strings.LastIndex(tc.src[:s.Start.Byte], "\n")+1 : s.Start.Byte]
			if want := 1 + graphemes([]byte(line)); s.Start.Column != want {
				t.Errorf("column %d, want %d", s.Start.Column, want)
			}
		})
	}
}

// TestExplainUnquoted: text written without quotes, which HCL reports as
// a missing newline at its second word (or at a ":", a "," or a "$"), is
// one error that points at the whole value and shows it in quotes; a
// value that is not text, or a line with a quote, keeps HCL's errors. A
// single word where the value is fixed at load is told the same.
func TestExplainUnquoted(t *testing.T) {
	tool := func(line string) string {
		return "tool \"a\" {\n  param \"name\" {}\n  template {\n" + line + "\n  }\n}\n"
	}
	for _, tc := range []struct {
		name, src string
		summary   string // of the only error
		detail    string // in its detail
		cols      [2]int // its subject's columns on line 4, when explained
	}{
		{"two words", tool("    text = Hello world"), "Text without quotes",
			`The value of text is not in quotes, so HCL reads it as an expression, and it is not one. If it is text, write it in double quotes: text = "Hello world".`, [2]int{12, 23}},
		{"a url", tool("    text = https://example.com/x"), "Text without quotes",
			`text = "https://example.com/x".`, [2]int{12, 33}},
		{"a comma", tool("    text = Hello, world!"), "Text without quotes", `text = "Hello, world!".`, [2]int{12, 25}},
		{"an interpolation, two errors in one", tool("    text = Hello ${param.name}"), "Text without quotes",
			`text = "Hello ${param.name}".`, [2]int{12, 31}},
		{"a single quote, two errors in one", tool("    text = Who's there"), "Text without quotes", `text = "Who's there".`, [2]int{12, 23}},
		{"a backslash escaped", tool(`    text = C:\dir x`), "Text without quotes", `text = "C:\\dir x".`, [2]int{12, 20}},
		{"CRLF line ends", strings.ReplaceAll(tool("    text = Hello world"), "\n", "\r\n"), "Text without quotes", `text = "Hello world".`, [2]int{12, 23}},
		{"one word, where the value is fixed at load", "tool \"a\" {\n  description = Greetings\n  template {\n    text = \"hi\"\n  }\n}\n",
			"Argument must be constant", `If Greetings is text, write it in double quotes: description = "Greetings".`, [2]int{}},
		{"a number first", tool("    text = 1 2"), "Missing newline after argument", "", [2]int{}},
		{"a quote in the line", tool(`    text = Hello "world"`), "Missing newline after argument", "", [2]int{}},
		{"a colon for an equals sign", tool(`    text: "x"`), "Argument or block definition required", "", [2]int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, tc.src, nil)
			errs := errorsOf(diags)
			if len(errs) != 1 || errs[0].Summary != tc.summary {
				t.Fatalf("want one %q error, got:\n%s", tc.summary, FormatDiagnostics(diags))
			}
			d := errs[0]
			if !strings.Contains(d.Detail, tc.detail) {
				t.Errorf("detail %q lacks %q", d.Detail, tc.detail)
			}
			if tc.cols == [2]int{} {
				return
			}
			if got := [2]int{d.Subject.Start.Column, d.Subject.End.Column}; d.Subject.Start.Line != 4 || d.Subject.End.Line != 4 || got != tc.cols {
				t.Errorf("subject %v, want line 4, columns %v", d.Subject, tc.cols)
			}
			value := strings.TrimSuffix(strings.TrimPrefix(strings.Split(tc.src, "\n")[3], "    text = "), "\r")
			if got := tc.src[d.Subject.Start.Byte:d.Subject.End.Byte]; got != value {
				t.Errorf("subject %q, want %q", got, value)
			}
		})
	}
}

// TestExplainUnclosedString: a string without its closing quote, which HCL
// reports twice at the end of its line ("Invalid multi-line string" and
// "Unterminated template string"), is one error from the opening quote to
// the end of the line that says the quote is missing, first among the
// file's errors.
func TestExplainUnclosedString(t *testing.T) {
	tool := func(line string) string {
		return "tool \"a\" {\n  param \"x\" {}\n  template {\n" + line + "\n  }\n}\n"
	}
	for _, tc := range []struct {
		name, src string
		quoted    string // the subject's text
	}{
		{"a word", tool(`    text = "hi`), `"hi`},
		{"an interpolation", tool(`    text = "a ${param.x} b`), `"a ${param.x} b`},
		{"a quoted string inside", tool(`    text = "a ${upper("b")} c`), `"a ${upper("b")} c`},
		{"trailing spaces", tool(`    text = "hi  `), `"hi`},
		{"CRLF line ends", strings.ReplaceAll(tool(`    text = "hi`), "\n", "\r\n"), `"hi`},
		{"text meant to span lines", tool("    text = \"line one\nline two\""), `"line one`},
		{"the next line with a string", tool("    text = \"hi\n    x = \"y\""), `"hi`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadString(t, tc.src, nil)
			var first *hcl.Diagnostic
			for _, d := range diags {
				if d.Summary == "Unterminated template string" {
					t.Errorf("HCL's error is left: %s", FormatDiagnostic(d))
				}
				if d.Severity == hcl.DiagError && first == nil {
					first = d
				}
			}
			if first == nil || first.Summary != "String without closing quote" {
				t.Fatalf("first error is not the explanation:\n%s", FormatDiagnostics(diags))
			}
			if !strings.Contains(first.Detail, "no closing quote (\") on line 4. ") || !strings.Contains(first.Detail, "Add the closing quote") {
				t.Errorf("detail %q", first.Detail)
			}
			if got := tc.src[first.Subject.Start.Byte:first.Subject.End.Byte]; got != tc.quoted || first.Subject.Start.Line != 4 || first.Subject.Start.Column != 12 {
				t.Errorf("subject %v is %q, want %q from line 4, column 12", first.Subject, got, tc.quoted)
			}
		})
	}
}

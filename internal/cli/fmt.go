package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rogpeppe/go-internal/diff"

	"github.com/toolhost/toolhost/adapters"
	thcl "github.com/toolhost/toolhost/hcl"
	"github.com/toolhost/toolhost/internal/hclfmt"
	"github.com/toolhost/toolhost/internal/regular"
)

// runFmt rewrites config files in HCL's canonical style (hclwrite's, by
// way of internal/hclfmt: aligned equals signs, two-space indents,
// normalised spacing). With -check it
// changes nothing, lists the files that would change and exits 1 if there
// are any, for CI; -diff does the same but prints the changes as a
// unified diff (gofmt -d's, from the Go team's anchored diff that
// go-internal exports) instead of the names. A file with syntax errors is
// reported and left alone.
//
// Each file is listed as soon as it is found unformatted (with -check) or
// rewritten; one that cannot be written is reported on stderr instead. A
// stop signal ends fmt at once, as it would any program, except while a
// file is written and renamed into place, which is finished first: no file
// is left half-written, and no temporary file is left behind. The file
// finished that way is not listed: fmt ends before it writes to stdout,
// which could block for as long as its reader wants.
func runFmt(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("fmt", "fmt [-check] [-diff] [CONFIG...]", stderr)
	check := fs.Bool("check", false, "change nothing; list the files that are not formatted and exit 1 if there are any")
	showDiff := fs.Bool("diff", false, "change nothing; print the changes formatting would make, as a unified diff, and exit 1 if there are any")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return parseExit(err)
	}
	*check = *check || *showDiff
	if len(paths) == 0 {
		paths = []string{"."}
	}
	files, diags := thcl.ConfigFiles(paths)
	if diags.HasErrors() {
		writeDiags(stderr, nil, diags)
		return ExitFailure
	}
	failed := false
	var unformatted []string
	for _, name := range files {
		if strings.HasSuffix(name, ".json") {
			fmt.Fprintf(stderr, "toolhost fmt: skipping %s: only native syntax (.hcl) files are formatted, not HCL's JSON syntax\n", name)
			continue
		}
		if !strings.HasSuffix(name, ".hcl") && !slices.Contains(paths, name) {
			// Found in a directory, where only .hcl and .json files
			// are config; a file named on the command line is
			// formatted whatever its name, as serve loads it.
			continue
		}
		src, err := thcl.ReadConfigFile(name)
		if errors.Is(err, thcl.ErrConfigTooLarge) {
			fmt.Fprintf(stderr, "toolhost fmt: %s was not read: %s\n", name, err)
			failed = true
			continue
		}
		if target, ok := thcl.DanglingLink(name); ok && err != nil {
			fmt.Fprintf(stderr, "toolhost fmt: %s is a symbolic link to %s, which does not exist; point the link at an existing file, or remove it\n", name, target)
			failed = true
			continue
		}
		var nr *regular.NotRegularError
		if errors.As(err, &nr) {
			fmt.Fprintf(stderr, "toolhost fmt: %s; give the path of a config file, which is a regular file\n", err)
			failed = true
			continue
		}
		if err != nil {
			fmt.Fprintf(stderr, "toolhost fmt: %s\n", err)
			failed = true
			continue
		}
		f, pd := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		// A file with lone CRs may parse as one comment, without errors.
		if pd = thcl.ExplainSyntaxErrors(name, src, pd); pd.HasErrors() {
			pd = thcl.LimitSyntaxErrors(name, pd)
			writeDiags(stderr, &thcl.Config{Files: map[string]*hcl.File{name: f}}, pd)
			fmt.Fprintf(stderr, "toolhost fmt: %s has syntax errors and was not formatted\n", name)
			failed = true
			continue
		}
		// A UTF-8 byte order mark (Windows PowerShell 5 writes one) is
		// kept: formatting changes layout, not the encoding's marks.
		body := adapters.TrimBOM(src)
		bom := src[:len(src)-len(body)]
		out := append(bom[:len(bom):len(bom)], withFinalNewline(hclfmt.Format(body))...)
		if bytes.Equal(out, src) {
			continue
		}
		unformatted = append(unformatted, name)
		if *showDiff {
			// Written as one piece: a stop signal ends fmt at once, and
			// a file's diff is then whole or absent.
			_, _ = stdout.Write(diff.Diff(name+".orig", src, name, out))
			continue
		}
		if !*check {
			release := holdSignals()
			err := writeInPlace(name, out)
			// A signal held during the write ends fmt here, before it
			// writes to stdout, which may block as long as its reader
			// wants.
			release()
			if err != nil {
				fmt.Fprintf(stderr, "toolhost fmt: %s\n", err)
				failed = true
				continue
			}
		}
		fmt.Fprintln(stdout, name)
	}
	switch {
	case failed:
		return ExitFailure
	case *check && len(unformatted) > 0:
		fmt.Fprintf(stderr, "toolhost fmt: %s not formatted; run toolhost fmt to rewrite %s\n", plural(len(unformatted), "file"), map[bool]string{true: "it", false: "them"}[len(unformatted) == 1])
		return ExitFailure
	}
	return ExitOK
}

// withFinalNewline ends formatted text with a line break, as gofmt does,
// in the file's own style (CRLF when its lines end so); hclwrite's
// formatter keeps a file's last line unterminated. Empty text stays empty.
func withFinalNewline(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] == '\n' {
		return b
	}
	if bytes.Contains(b, []byte("\r\n")) {
		return append(b, '\r', '\n')
	}
	return append(b, '\n')
}

// writeInPlace replaces a file's content atomically, keeping its mode. A
// symbolic link is followed, so that the file it points to is rewritten
// and the link stays. A file with other names (hard links) is written
// through instead, as gofmt -w writes, so that they all keep naming it:
// a rename would leave them the old text, and a config directory that
// holds two of its names, which is loaded once (thcl.ConfigFiles), would
// then declare every block twice. The formatted text is in a file beside
// it first; should the write through fail, that file is renamed into
// place.
func writeInPlace(name string, data []byte) error {
	target, err := filepath.EvalSymlinks(name)
	if err != nil {
		return err
	}
	info, err := os.Stat(target)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".fmt-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if thcl.HardLinks(target, info) > 1 && writeThrough(target, data) == nil {
		return nil
	}
	return os.Rename(tmp.Name(), target)
}

// writeThrough replaces the content of the file at name with data, in the
// file itself: its inode, and so each of its names, stays. A file that is
// no longer regular (a FIFO put in its place) is not opened, so that the
// write does not wait for a reader.
func writeThrough(name string, data []byte) error {
	f, err := regular.OpenWrite(name)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

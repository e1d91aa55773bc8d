package interop

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// npmTestVersion is the version the test's archives carry, shaped as a
// GoReleaser snapshot's.
const npmTestVersion = "0.1.1-SNAPSHOT-0a1b2c3"

// npmPlatforms maps GOOS/GOARCH to the npm platform package's key.
var npmPlatforms = map[string]string{
	"linux/amd64":   "linux-x64",
	"linux/arm64":   "linux-arm64",
	"darwin/amd64":  "darwin-x64",
	"darwin/arm64":  "darwin-arm64",
	"windows/amd64": "win32-x64",
	"windows/arm64": "win32-arm64",
}

// TestNPMPackages builds this platform's release archive as GoReleaser
// lays it out, and runs npm.test.mjs on it: npm/build.mjs makes the npm
// packages, npm installs them from the tarballs with no registry, and the
// TypeScript SDK client drives `npx -y toolhost serve`, installed and
// through a registry on 127.0.0.1. The archive's
// binary also goes into a Windows zip (another platform's, unless this is
// Windows), so that build.mjs's zip reader unpacks a real zip: npm leaves
// that package out on other platforms, as it would the real one.
func TestNPMPackages(t *testing.T) {
	node := findNode(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm is not installed beside node: " + nodeInstallHint)
	}
	here := runtime.GOOS + "/" + runtime.GOARCH
	key, ok := npmPlatforms[here]
	if !ok {
		t.Skipf("there is no npm package for %s: the npm packages are for %v", here, npmPlatforms)
	}

	tmp := t.TempDir()
	exe := filepath.Join(tmp, "toolhost")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	build := exec.Command("go", "build", "-ldflags", "-X github.com/toolhost/toolhost/hcl.Version="+npmTestVersion, "-o", exe, "../cmd/toolhost")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ../cmd/toolhost: %v\n%s", err, out)
	}

	dist := filepath.Join(tmp, "dist")
	if err := os.Mkdir(dist, 0o755); err != nil {
		t.Fatal(err)
	}
	files := []archiveFile{
		{name: "toolhost", data: readFile(t, exe), mode: 0o755},
		{name: "README.md", data: readFile(t, "../README.md"), mode: 0o644},
		{name: "LICENSE", data: readFile(t, "../LICENSE"), mode: 0o644},
	}
	only := key
	if runtime.GOOS == "windows" {
		files[0].name = "toolhost.exe"
		writeArchive(t, filepath.Join(dist, fmt.Sprintf("toolhost_%s_windows_%s.zip", npmTestVersion, runtime.GOARCH)), files)
	} else {
		writeArchive(t, filepath.Join(dist, fmt.Sprintf("toolhost_%s_%s_%s.tar.gz", npmTestVersion, runtime.GOOS, runtime.GOARCH)), files)
		win := append([]archiveFile{{name: "toolhost.exe", data: files[0].data, mode: 0o755}}, files[1:]...)
		writeArchive(t, filepath.Join(dist, fmt.Sprintf("toolhost_%s_windows_amd64.zip", npmTestVersion)), win)
		only += ",win32-x64"
	}

	runNode(t, node, nodeTimeout, []string{
		"TOOLHOST_NPM_DIST=" + dist,
		"TOOLHOST_NPM_VERSION=" + npmTestVersion,
		"TOOLHOST_NPM_ONLY=" + only,
	}, "npm.test.mjs")
}

// archiveFile is a file to put into a test archive.
type archiveFile struct {
	name string
	data []byte
	mode int64
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// writeArchive writes files into a new archive at path: a .zip,
// deflated, or a .tar.gz.
func writeArchive(t *testing.T, path string, files []archiveFile) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".zip") {
		err = writeZip(f, files)
	} else {
		err = writeTarGz(f, files)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("writing %s: %v", path, err)
	}
}

func writeTarGz(w io.Writer, files []archiveFile) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, af := range files {
		h := &tar.Header{Name: af.name, Mode: af.mode, Size: int64(len(af.data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(af.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, files []archiveFile) error {
	zw := zip.NewWriter(w)
	for _, af := range files {
		h := &zip.FileHeader{Name: af.name, Method: zip.Deflate}
		h.SetMode(os.FileMode(af.mode))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(af.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

package testconfig

import "testing"

// NoSymlinksUnderWine is why a test that makes symbolic links skips under
// wine.
const NoSymlinksUnderWine = "wine 8 makes no symbolic links: os.Symlink returns nil and creates nothing"

// NeedSymlinks skips t under wine, which cannot make symbolic links (see
// NoSymlinksUnderWine); on Linux, macOS and Windows itself it does nothing.
func NeedSymlinks(t testing.TB) {
	t.Helper()
	if UnderWine() {
		t.Skip(NoSymlinksUnderWine)
	}
}

package testconfig

import "golang.org/x/sys/windows"

// UnderWine reports whether the process runs under wine rather than on
// Windows itself: wine's ntdll.dll exports wine_get_version, and Windows'
// does not. Tests skip, with the wine gap named, what wine cannot do
// (symbolic links, console control events); on Windows they run.
func UnderWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

//go:build !(darwin || dragonfly || freebsd || netbsd || openbsd)

package host

// watchOpensEntries says that watching a directory opens every entry of
// it too; here (inotify, Windows) a directory is one watch, whatever it
// holds.
const watchOpensEntries = false

//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package host

// watchOpensEntries says that watching a directory opens every entry of
// it too (kqueue): each counts against maxResourceWatchSlots.
const watchOpensEntries = true

// Package neterr tells network errors apart portably: on Windows, a
// socket's errors are Winsock's own (WSAECONNREFUSED, WSAEADDRINUSE...),
// which the syscall package's Unix errors (ECONNREFUSED, EADDRINUSE...)
// do not match, so each question has a file per platform.
package neterr

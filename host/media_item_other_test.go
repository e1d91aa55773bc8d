//go:build !unix

package host

// specialFileSwaps is empty outside unix: the FIFO, the socket file and
// the folder made a file of TestMediaItemFileSwapped are unix's.
var specialFileSwaps []fileSwap

package host

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestGCBallastNotResident checks that the ballast stays out of RSS when
// the heap has free pages to make it from: a load under RelaxGC's higher
// GOGC leaves many, which the runtime keeps resident while the heap goal
// covers them. Made of those pages, the ballast would be zeroed, and so
// written: it is made after they are returned to the system, and its
// pages are then never touched. mincore(2) tells which are resident.
//
// It runs in a process of its own, as TestGCBallast does.
func TestGCBallastNotResident(t *testing.T) {
	if !inOwnProcess(t) {
		return
	}
	// A high GOGC and a few MB live, as after a load: the heap goal then
	// covers the free pages, so that the background scavenger leaves them
	// resident.
	defer debug.SetGCPercent(debug.SetGCPercent(1000))
	live := make([][]byte, 0, 16)
	for range 16 {
		live = append(live, make([]byte, 256<<10)) // 4 MB, kept
	}
	var garbage [][]byte
	for range 96 {
		garbage = append(garbage, make([]byte, 256<<10)) // 24 MB, written
	}
	for _, g := range garbage {
		for i := range g {
			g[i] = 1
		}
	}
	garbage = nil
	runtime.GC()

	b := gcBallast()
	if len(b) < 4<<20 {
		t.Fatalf("ballast of %d bytes, want several MB (live heap about 4 MB)", len(b))
	}
	page := os.Getpagesize()
	vec := make([]byte, (len(b)+page-1)/page)
	// A large allocation starts a span, which is page-aligned.
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	resident := 0
	for _, v := range vec {
		resident += int(v & 1)
	}
	if resident*page > 1<<20 {
		t.Errorf("%d of the ballast's %d pages are resident (%d MB), want them untouched", resident, len(vec), resident*page>>20)
	}
	runtime.KeepAlive(live)
	runtime.KeepAlive(b)
}

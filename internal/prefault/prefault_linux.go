package prefault

import (
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE from linux/mman.h, which the
// syscall package does not define.
const madvPopulateWrite = 23

func init() {
	go func() {
		initMapped, initErr = Populate(heapFrontier(), HeapAhead)
		close(initDone)
	}()
}

// initMapped and initErr are what Populate at init returned, once initDone
// is closed.
var (
	initMapped int
	initErr    error
	initDone   = make(chan struct{})
)

// frontier keeps the object heapFrontier takes the address of alive, so
// that its address is not reused before Populate has run.
var frontier *[64]byte

// heapFrontier returns the address of a newly allocated object: about where
// the heap is growing now. The runtime hands out pages in address order,
// lowest free first, so the pages the next allocations will take lie just
// above it.
func heapFrontier() uintptr {
	frontier = new([64]byte)
	return uintptr(unsafe.Pointer(frontier))
}

// Populate maps the n bytes of memory from addr (rounded down to a page)
// as if each page had been written to, and returns how many bytes from
// addr's page on it mapped. Pages already mapped are left as they are. It
// works in pieces of 256 KiB, aligned to 256 KiB, and stops at the first
// piece the kernel refuses: memory that is not mapped writable, such as
// the part of the heap's address space the runtime has not made usable
// yet, or any memory at all on kernels before 5.14, which lack
// MADV_POPULATE_WRITE. The error says why it stopped short of n bytes.
func Populate(addr uintptr, n int) (int, error) {
	const piece = 256 << 10
	start := addr &^ (uintptr(syscall.Getpagesize()) - 1)
	end := addr + uintptr(n)
	for p := start; p < end; {
		next := min(p&^(piece-1)+piece, end)
		_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, p, next-p, madvPopulateWrite)
		if errno != 0 {
			return int(p - start), errno
		}
		p = next
	}
	return int(end - start), nil
}

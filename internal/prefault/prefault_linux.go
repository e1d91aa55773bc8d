package prefault

import (
	"runtime"
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE from linux/mman.h, which the
// syscall package does not define.
const madvPopulateWrite = 23

// schedIdle is SCHED_IDLE from linux/sched.h: a thread of this policy runs
// only on a processor nothing else wants.
const schedIdle = 5

func init() {
	go func() {
		defer close(initDone)
		// The thread this runs on is set to run only when its processor
		// would otherwise idle: when the machine's other cores are busy
		// with other programs, mapping ahead on the start's own cores made
		// it 0.2 ms slower. The goroutine keeps the thread to itself and
		// ends without giving it back, so the runtime ends the thread
		// instead of running other goroutines at that priority on it.
		runtime.LockOSThread()
		if initErr = setIdlePriority(); initErr != nil {
			return
		}
		initMapped, initErr = Populate(heapFrontier(), HeapAhead)
	}()
}

// setIdlePriority sets the calling thread's scheduling policy to
// SCHED_IDLE.
func setIdlePriority() error {
	var param struct{ priority int32 }
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, 0, schedIdle, uintptr(unsafe.Pointer(&param)))
	if errno != 0 {
		return errno
	}
	return nil
}

// initMapped and initErr are what the init's goroutine did, once initDone
// is closed: the bytes Populate mapped, and why it stopped short or did
// not run.
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

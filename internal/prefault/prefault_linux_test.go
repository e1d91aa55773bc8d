package prefault

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// resident counts the pages of b that are mapped, as mincore(2) tells.
func resident(t *testing.T, b []byte) int {
	t.Helper()
	page := syscall.Getpagesize()
	vec := make([]byte, (len(b)+page-1)/page)
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestPopulateMapsFreshMemory maps memory the program has not written to,
// which the kernel has not backed yet, as the heap the runtime takes from
// it is, and checks that Populate backs all of it without changing what it
// holds: the bytes written before stay, the rest reads as zero.
func TestPopulateMapsFreshMemory(t *testing.T) {
	page := syscall.Getpagesize()
	pages := (8 << 20) / page
	b, err := syscall.Mmap(-1, 0, pages*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(b) })

	if got := resident(t, b); got > pages/10 {
		t.Fatalf("before Populate, %d of %d pages are mapped already; the test needs fresh memory", got, pages)
	}
	for i := range 16 {
		b[i*page+7] = byte(i + 1)
	}
	if n, err := Populate(uintptr(unsafe.Pointer(&b[0])), len(b)); n != len(b) || err != nil {
		t.Fatalf("Populate mapped %d of %d bytes: %v (a kernel before Linux 5.14 refuses)", n, len(b), err)
	}
	if got := resident(t, b); got != pages {
		t.Errorf("after Populate, %d of %d pages are mapped, want all", got, pages)
	}
	for i := range b {
		want := byte(0)
		if i%page == 7 && i/page < 16 {
			want = byte(i/page + 1)
		}
		if b[i] != want {
			t.Fatalf("byte %d is %d after Populate, want %d", i, b[i], want)
		}
	}
}

// TestPopulateUnmappedRange is a range with no memory behind it: Populate
// reports the kernel's error and nothing else happens.
func TestPopulateUnmappedRange(t *testing.T) {
	if n, err := Populate(0, 1<<20); n != 0 || err == nil {
		t.Fatalf("Populate of the first megabyte of address space mapped %d bytes, error %v; want 0 and an error", n, err)
	}
}

// TestInitPopulates checks that importing the package ran Populate, and
// that the kernel mapped at least the first piece. It may stop short of
// HeapAhead where the runtime has not made the heap's address space usable
// yet.
func TestInitPopulates(t *testing.T) {
	select {
	case <-initDone:
		if initMapped == 0 {
			t.Fatalf("Populate at init mapped nothing: %v", initErr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Populate at init has not returned after 10 s")
	}
}

// TestPopulateStopsAtUnusableMemory is the heap's case: a range whose end
// the runtime has reserved but not made usable yet (PROT_NONE). Populate
// maps the usable part and says where it stopped.
func TestPopulateStopsAtUnusableMemory(t *testing.T) {
	const half = 1 << 20
	// Twice the size, so that a 1 MiB-aligned start can be picked: the
	// pieces Populate works in are aligned.
	m, err := syscall.Mmap(-1, 0, 4*half, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(m) })
	off := (half - int(uintptr(unsafe.Pointer(&m[0]))%half)) % half
	b := m[off : off+2*half]
	if err := syscall.Mprotect(b[half:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	n, err := Populate(uintptr(unsafe.Pointer(&b[0])), len(b))
	if n != half || err == nil {
		t.Fatalf("Populate mapped %d bytes, error %v; want %d and an error", n, err, half)
	}
	page := syscall.Getpagesize()
	if got := resident(t, b[:half]); got != half/page {
		t.Errorf("%d of the %d usable pages are mapped, want all", got, half/page)
	}
}

// TestNoThreadLeftIdle checks that the thread init's goroutine lowered to
// SCHED_IDLE ended with it, so that no other goroutine runs at that
// priority.
func TestNoThreadLeftIdle(t *testing.T) {
	<-initDone
	deadline := time.Now().Add(5 * time.Second)
	for {
		idle := idleThreads(t)
		if len(idle) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("threads %v are still at SCHED_IDLE 5 s after the populate ended", idle)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// idleThreads lists the threads of this process whose policy is
// SCHED_IDLE, from /proc/self/task/*/stat (field 41, policy).
func idleThreads(t *testing.T) []string {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var idle []string
	for _, task := range tasks {
		stat, err := os.ReadFile("/proc/self/task/" + task.Name() + "/stat")
		if err != nil {
			continue // the thread ended
		}
		// Fields after the command, which is in parentheses, start at 3.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 41-3 && fields[41-3] == strconv.Itoa(schedIdle) {
			idle = append(idle, task.Name())
		}
	}
	return idle
}

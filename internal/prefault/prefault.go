// Package prefault has the kernel map the memory a start of toolhost is
// about to allocate, on a spare processor, before the program first writes
// to it.
//
// A Go program takes its heap from the kernel as untouched address space.
// The first write to each 4 KiB page of it traps to the kernel, which finds
// a zeroed page and maps it. On the 2-core VMs toolhost is measured on,
// each such fault costs about 1.5 µs, and a start of examples/tools.hcl
// takes about 1,000 of them. About 700 are in the heap, and most of those
// come in the load, which allocates about 1.3 MB.
// madvise(MADV_POPULATE_WRITE), Linux 5.14 and later, maps a whole range at
// once, for less than the faults cost one by one, and a goroutine can do it
// on the other core while the first one initialises packages and loads the
// config. The pages it maps are the zeroed pages the faults would have
// mapped, so the program cannot tell the difference, except in time. Its
// thread runs at SCHED_IDLE, only on a core that would otherwise be idle:
// on a machine whose other core is busy, it then costs the start about
// nothing, where at normal priority it cost 0.2 ms.
//
// Importing the package starts this for the next HeapAhead bytes of heap:
// cmd/toolhost imports it for its side effect. Its init runs early, 15th
// of about 126 packages, as it needs only syscall. Measured on
// examples/tools.hcl: about 1,100 page faults a start became about 750,
// and a start took 0.1–0.4 ms less in the interleaving harnesses; the
// benchmark driver's start case sees less than its noise (BENCHMARKS.md,
// "Cold start: page faults, and the heap mapped ahead").
package prefault

// HeapAhead is how much of the heap, from the place it is being allocated
// at when the package is initialised, is mapped ahead of use. A start of
// examples/tools.hcl allocates about 4 MB after that point; mapping 2, 3 or
// 4 MB of it took the same time off, and each byte mapped but never used
// stays resident, so 2 MB it is.
const HeapAhead = 2 << 20

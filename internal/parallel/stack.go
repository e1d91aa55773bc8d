package parallel

// growStack grows the calling goroutine's stack to 64 KiB in one step. A
// goroutine starts with a few KiB of stack, which the runtime doubles when
// it runs out, copying every frame and adjusting the pointers into them. A
// load goes deep: HCL's parser and decoder recurse, and a load of
// examples/tools.hcl on one goroutine ends with a 64 KiB stack, three
// doublings from the first 8 KiB, each made with many frames to walk. A
// frame of 32 KiB, taken while the stack is still shallow, has the runtime
// make one copy of a few frames instead. Once grown, a stack keeps its size
// until a garbage collection finds it mostly unused.
//
// This is the trick of CockroachDB's util/growstack; BENCHMARKS.md has what
// it took off a cold start of examples/tools.hcl.
// The byte it returns is always 0: reading the frame keeps the compiler
// from removing it.
//
//go:noinline
func growStack() byte {
	var frame [32 << 10]byte
	return frame[frameIndex]
}

// frameIndex is never set; growStack reads its frame through it.
var frameIndex int

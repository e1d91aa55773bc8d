package telemetry

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// processStart is about when the process started: when its packages were
// initialized.
var processStart = time.Now()

// writeRuntime writes the Go runtime's metrics, under the names
// client_golang's Go collector gives them.
func writeRuntime(e *expo) {
	samples := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(samples)
	if v := samples[0].Value; v.Kind() == metrics.KindUint64 {
		e.gauge("go_gc_gogc_percent", "Heap size target percentage configured by the user, otherwise 100.", float64(v.Uint64()))
	}
	if v := samples[1].Value; v.Kind() == metrics.KindUint64 {
		e.gauge("go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user, otherwise math.MaxInt64.", float64(v.Uint64()))
	}
	e.gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))
	e.family("go_info", "gauge", "Information about the Go environment.")
	e.sample("go_info", "version", runtime.Version(), "", "", 1)

	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for _, g := range []struct {
		name, help string
		v          uint64
		counter    bool
	}{
		{"go_memstats_alloc_bytes", "Number of heap bytes allocated and currently in use.", ms.Alloc, false},
		{"go_memstats_alloc_bytes_total", "Total number of heap bytes allocated, even if freed.", ms.TotalAlloc, true},
		{"go_memstats_frees_total", "Total number of heap objects frees.", ms.Frees, true},
		{"go_memstats_gc_sys_bytes", "Number of bytes used for garbage collection system metadata.", ms.GCSys, false},
		{"go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use.", ms.HeapAlloc, false},
		{"go_memstats_heap_idle_bytes", "Number of heap bytes waiting to be used.", ms.HeapIdle, false},
		{"go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use.", ms.HeapInuse, false},
		{"go_memstats_heap_objects", "Number of currently allocated objects.", ms.HeapObjects, false},
		{"go_memstats_heap_released_bytes", "Number of heap bytes released to OS.", ms.HeapReleased, false},
		{"go_memstats_heap_sys_bytes", "Number of heap bytes obtained from system.", ms.HeapSys, false},
		{"go_memstats_mallocs_total", "Total number of heap objects allocated, both live and gc-ed.", ms.Mallocs, true},
		{"go_memstats_next_gc_bytes", "Number of heap bytes when next garbage collection will take place.", ms.NextGC, false},
		{"go_memstats_stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO environments.", ms.StackInuse, false},
		{"go_memstats_sys_bytes", "Number of bytes obtained from system.", ms.Sys, false},
	} {
		if g.counter {
			e.counter(g.name, g.help, float64(g.v))
		} else {
			e.gauge(g.name, g.help, float64(g.v))
		}
	}
	e.gauge("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", float64(ms.LastGC)/1e9)
	e.gauge("go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously.", float64(runtime.GOMAXPROCS(0)))
	n, _ := runtime.ThreadCreateProfile(nil)
	e.gauge("go_threads", "Number of OS threads created.", float64(n))
}

// writeProcess writes the process's metrics that this system gives,
// under the names client_golang's process collector gives them.
func writeProcess(e *expo) {
	p := readProcess()
	if p.cpu >= 0 {
		e.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", p.cpu)
	}
	if p.maxFDs > 0 {
		e.gauge("process_max_fds", "Maximum number of open file descriptors.", p.maxFDs)
	}
	if p.openFDs >= 0 {
		e.gauge("process_open_fds", "Number of open file descriptors.", p.openFDs)
	}
	if p.rss >= 0 {
		e.gauge("process_resident_memory_bytes", "Resident memory size in bytes.", p.rss)
	}
	e.gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", float64(processStart.UnixNano())/1e9)
	if p.vsize >= 0 {
		e.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", p.vsize)
	}
}

// processStats are the process's figures; -1 (0 for maxFDs) where the
// system does not give one.
type processStats struct {
	cpu, maxFDs, openFDs, rss, vsize float64
}

//go:build wasip1

package witrt

import (
	"runtime/debug"
	"unsafe"
)

// runtimeReady turns true when package initialisation runs; before that (the host may
// allocate while the runtime starts) the garbage collector cannot be used.
var runtimeReady bool

// gcPercent is the collector's setting while the provider's code runs (GOGC, 100 by
// default).
var gcPercent int

func init() {
	runtimeReady = true
	// Between calls the host writes the next call's arguments through cabi_realloc, where a
	// component may call no import; a collection finishing there reads the wall clock (which
	// the adapter cannot answer from a cache, as it does the monotonic one) and traps. So the
	// collector runs only inside calls, between CallStarted and CallEnded.
	gcPercent = debug.SetGCPercent(-1)
}

// CallStarted lets the collector run while the provider's code does.
func CallStarted() {
	debug.SetGCPercent(gcPercent)
}

// CallEnded stops the collector before the call returns and the host writes into the
// guest again.
func CallEnded() {
	debug.SetGCPercent(-1)
}

//go:linkname sbrk runtime.sbrk
func sbrk(n uintptr) unsafe.Pointer

// The preview-1 adapter answers clock reads from a cached value while paused: the garbage
// collector reads the clock, and a component may call no import from inside cabi_realloc.
//
//go:wasmimport wasi_snapshot_preview1 adapter_monotonic_clock_set_paused
func adapterMonotonicClockSetPaused(paused bool)

// cabiRealloc is the canonical ABI's allocator, through which the host writes arguments
// and results into guest memory. Only fresh allocations are asked for.
//
//go:wasmexport cabi_realloc
func cabiRealloc(oldPointer unsafe.Pointer, oldSize, align, newSize uintptr) unsafe.Pointer {
	if oldPointer != nil || oldSize != 0 {
		panic("witrt: cabi_realloc was asked to grow an allocation")
	}
	if !runtimeReady {
		padded := newSize + align
		raw := uintptr(sbrk(padded))
		return unsafe.Pointer((raw + align - 1) &^ (align - 1))
	}
	adapterMonotonicClockSetPaused(true)
	pointer := Allocate(&reallocPinner, newSize, align)
	adapterMonotonicClockSetPaused(false)
	return pointer
}

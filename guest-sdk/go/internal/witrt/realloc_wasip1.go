//go:build wasip1

package witrt

import "unsafe"

// runtimeReady turns true when package initialisation runs; before that (the host may
// allocate while the runtime starts) the garbage collector cannot be used.
var runtimeReady bool

func init() {
	runtimeReady = true
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

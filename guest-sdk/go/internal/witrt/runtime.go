package witrt

import (
	"runtime"
	"unsafe"
)

// Handle owns a resource handle the host gave the guest; zero means none (taken or never
// set). Bindings take it when ownership passes back to the host.
type Handle struct {
	value int32
}

// MakeHandle wraps a handle the host returned.
func MakeHandle(value int32) *Handle {
	if value == 0 {
		panic("witrt: the host returned a null resource handle")
	}
	return &Handle{value: value}
}

// Use returns the handle for a call that borrows it.
func (h *Handle) Use() int32 {
	if h.value == 0 {
		panic("witrt: a resource was used after it was dropped or moved")
	}
	return h.value
}

// Take returns the handle and forgets it: ownership moves to the host.
func (h *Handle) Take() int32 {
	value := h.Use()
	h.value = 0
	return value
}

// TakeOrNil is Take for a handle that may already be gone (dropping twice is harmless).
func (h *Handle) TakeOrNil() int32 {
	value := h.value
	h.value = 0
	return value
}

// Set stores a handle in an empty Handle.
func (h *Handle) Set(value int32) {
	if value == 0 || h.value != 0 {
		panic("witrt: a resource handle was set twice or to null")
	}
	h.value = value
}

// Allocate returns zeroed memory of size bytes, aligned to align, pinned by pinner so the
// garbage collector neither frees nor moves it while the host reads or writes it.
func Allocate(pinner *runtime.Pinner, size, align uintptr) unsafe.Pointer {
	if size == 0 {
		return nil
	}
	if size%align != 0 {
		panic("witrt: allocation size is not a multiple of its alignment")
	}
	var pointer unsafe.Pointer
	// Backed by a slice of the alignment's word size, so the allocator aligns it.
	switch align {
	case 1:
		pointer = unsafe.Pointer(unsafe.SliceData(make([]uint8, size)))
	case 2:
		pointer = unsafe.Pointer(unsafe.SliceData(make([]uint16, size/2)))
	case 4:
		pointer = unsafe.Pointer(unsafe.SliceData(make([]uint32, size/4)))
	case 8:
		pointer = unsafe.Pointer(unsafe.SliceData(make([]uint64, size/8)))
	default:
		panic("witrt: unsupported alignment")
	}
	pinner.Pin(pointer)
	return pointer
}

// reallocPinner keeps what the host allocated through cabi_realloc (an export's arguments,
// an import's results) until the bindings are done with it.
var reallocPinner runtime.Pinner

// Unpin releases everything cabi_realloc handed out; the bindings call it once they have
// copied what the host wrote.
func Unpin() {
	reallocPinner.Unpin()
}

//! The allocator of a provider component: small blocks freed during a call are kept by size
//! and handed out again at once.
//!
//! A provider's calls build and drop trees of small values (an apply of `random_string`
//! allocates about 60 times), and in a component wasi-libc's dlmalloc spends some 350
//! instructions on each allocation and its free: a fifth of the guest's work in issue 37's
//! profiles. Freed blocks of up to 256 bytes wait on one list per 16-byte size class and are
//! taken back in a few instructions (a call runs 6–9 % fewer instructions); at most
//! [`KEPT_BYTES`] wait in all, so what the lists hold back from other sizes stays bounded, and
//! everything larger goes to dlmalloc as before.
//!
//! Installed as the component's global allocator by the SDK's default `allocator` feature,
//! only in a `wasm32` build without threads (the lists have no lock, and elsewhere the type is
//! not `Sync`, so it cannot be installed at all). A provider that wants an allocator of its own
//! turns the feature off wherever it depends on the SDK (two global allocators do not link).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr;

/// The step between size classes.
const STEP: usize = 16;
/// The alignment of kept blocks: what wasi-libc's `malloc` gives every block on `wasm32`, so
/// kept blocks come from plain `malloc` and `realloc` (a stricter one takes `aligned_alloc`).
const ALIGN: usize = 8;
/// Size classes: blocks of up to `STEP * CLASSES` bytes are kept.
const CLASSES: usize = 16;
/// Most bytes waiting on the lists at once; a block freed past this goes back to dlmalloc.
pub const KEPT_BYTES: usize = 1 << 20;

/// Free lists of small blocks in front of the system allocator.
pub struct Allocator {
    lists: UnsafeCell<Lists>,
}

struct Lists {
    heads: [*mut Free; CLASSES],
    kept: usize,
}

/// A kept block's first word: the next block of its class.
struct Free {
    next: *mut Free,
}

impl Allocator {
    /// Empty lists.
    pub const fn new() -> Allocator {
        Allocator {
            lists: UnsafeCell::new(Lists {
                heads: [ptr::null_mut(); CLASSES],
                kept: 0,
            }),
        }
    }

    /// The lists, for the length of one allocator call.
    ///
    /// # Safety
    /// No other reference to the lists may be live: true with one thread, as the allocator is
    /// never called from within itself.
    #[allow(clippy::mut_from_ref)]
    unsafe fn lists(&self) -> &mut Lists {
        // SAFETY: the caller's contract.
        unsafe { &mut *self.lists.get() }
    }
}

/// Gives the kept blocks back: the global allocator is never dropped, but one made for a
/// test is, and it must not leak.
impl Drop for Allocator {
    fn drop(&mut self) {
        let lists = self.lists.get_mut();
        for (class, head) in lists.heads.iter_mut().enumerate() {
            while !head.is_null() {
                let free = *head;
                // SAFETY: a kept block starts with the `Free` written when it was kept, and came
                // from `System` with its class's layout.
                unsafe {
                    *head = (*free).next;
                    System.dealloc(free.cast(), block(class));
                }
            }
        }
        lists.kept = 0;
    }
}

impl Default for Allocator {
    fn default() -> Allocator {
        Allocator::new()
    }
}

// SAFETY: a `wasm32` build without the atomics feature has one thread, so the lists are never
// reached from two. Anywhere else the type is not `Sync`, so it cannot be a global allocator
// (or any other shared static) and no safe code can race on it.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl Sync for Allocator {}

/// The size class of `layout`, when its blocks are kept.
fn class(layout: Layout) -> Option<usize> {
    let size = layout.size();
    (size != 0 && size <= STEP * CLASSES && layout.align() <= ALIGN).then(|| (size - 1) / STEP)
}

/// The layout every block of class `class` is allocated with: its class's full size.
fn block(class: usize) -> Layout {
    // SAFETY: a non-zero multiple of the alignment, a power of two.
    unsafe { Layout::from_size_align_unchecked((class + 1) * STEP, ALIGN) }
}

// Each method is out of line: the SDK's own drop glue would otherwise inline it at every
// site (135 KB of a component).
//
// SAFETY: every block handed out is at least `layout.size()` bytes aligned to
// `layout.align()`: a block of a class is always a `System` block of layout `block(class)`
// (allocated, or reallocated from another class, as one), and is kept only by the class its
// layout names. Every block reaches `System` again with the layout `System` gave it.
unsafe impl GlobalAlloc for Allocator {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class(layout) else {
            // SAFETY: forwarded unchanged.
            return unsafe { System.alloc(layout) };
        };
        // SAFETY: one thread, and no allocator call in between.
        let lists = unsafe { self.lists() };
        let head = lists.heads[class];
        if head.is_null() {
            // SAFETY: a valid, non-zero layout.
            return unsafe { System.alloc(block(class)) };
        }
        // SAFETY: a kept block starts with the `Free` written when it was kept.
        lists.heads[class] = unsafe { (*head).next };
        lists.kept -= block(class).size();
        head.cast()
    }

    #[inline(never)]
    unsafe fn dealloc(&self, block_ptr: *mut u8, layout: Layout) {
        let Some(class) = class(layout) else {
            // SAFETY: allocated by `System` with this layout.
            return unsafe { System.dealloc(block_ptr, layout) };
        };
        // SAFETY: one thread, and no allocator call in between.
        let lists = unsafe { self.lists() };
        let size = block(class).size();
        if lists.kept + size > KEPT_BYTES {
            // SAFETY: every block of this class came from `System` with this layout.
            return unsafe { System.dealloc(block_ptr, block(class)) };
        }
        let free = block_ptr.cast::<Free>();
        // SAFETY: the block is ours again, at least a word long and aligned to `ALIGN`.
        unsafe {
            free.write(Free {
                next: lists.heads[class],
            })
        };
        lists.heads[class] = free;
        lists.kept += size;
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if class(layout).is_none() {
            // SAFETY: forwarded unchanged.
            return unsafe { System.alloc_zeroed(layout) };
        }
        // SAFETY: as `alloc`; the block is then at least `layout.size()` bytes.
        let block_ptr = unsafe { self.alloc(layout) };
        if !block_ptr.is_null() {
            // SAFETY: see above.
            unsafe { ptr::write_bytes(block_ptr, 0, layout.size()) };
        }
        block_ptr
    }

    #[inline(never)]
    unsafe fn realloc(&self, block_ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size`, rounded up to the alignment, fits `isize`.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (class(layout), class(new_layout)) {
            // It already holds its class's full size.
            (Some(old), Some(new)) if old == new => block_ptr,
            // SAFETY: a `System` block of layout `block(old)`, grown or shrunk in place where
            // `System` can to `block(new)`, which has the same alignment.
            (Some(old), Some(new)) => unsafe {
                System.realloc(block_ptr, block(old), block(new).size())
            },
            // SAFETY: forwarded unchanged.
            (None, None) => unsafe { System.realloc(block_ptr, layout, new_size) },
            // Into or out of the classes: the layouts `System` knows the two blocks by differ,
            // so the bytes move to a new block and the old one is freed as what it is.
            _ => {
                // SAFETY: a valid layout; the old block is valid for the smaller size and
                // freed once, after the copy.
                unsafe {
                    let moved = self.alloc(new_layout);
                    if !moved.is_null() {
                        ptr::copy_nonoverlapping(block_ptr, moved, layout.size().min(new_size));
                        self.dealloc(block_ptr, layout);
                    }
                    moved
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    /// A freed small block is handed out again for its class, blocks of other classes and
    /// large ones are not kept, and no block is handed out twice.
    #[test]
    fn freed_small_blocks_come_back_for_their_class_only() {
        let a = Allocator::new();
        unsafe {
            let first = a.alloc(layout(24, 8));
            first.write_bytes(0xab, 24);
            a.dealloc(first, layout(24, 8));
            // 17..=32 bytes share a class: the block comes back.
            let again = a.alloc(layout(32, 8));
            assert_eq!(again, first);
            // A stricter alignment than malloc's is `System`'s to serve.
            let strict = a.alloc(layout(32, 16));
            assert_ne!(strict, first);
            assert_eq!(strict as usize % 16, 0);
            a.dealloc(strict, layout(32, 16));
            let other = a.alloc(layout(24, 8));
            assert_ne!(other, first, "a block handed out twice");
            let zeroed = a.alloc_zeroed(layout(20, 4));
            assert!((0..20).all(|i| *zeroed.add(i) == 0));
            // Large blocks and strict alignments pass through.
            let large = a.alloc(layout(4096, 8));
            a.dealloc(large, layout(4096, 8));
            assert_eq!((*a.lists.get()).kept, 0);
            for (p, l) in [
                (again, layout(32, 8)),
                (other, layout(24, 8)),
                (zeroed, layout(20, 4)),
            ] {
                a.dealloc(p, l);
            }
            assert_eq!((*a.lists.get()).kept, 32 + 32 + 32);
        }
    }

    /// Growing and shrinking keep the contents, whichever allocator each size belongs to.
    #[test]
    fn realloc_keeps_the_bytes_across_classes_and_sizes() {
        let a = Allocator::new();
        unsafe {
            let mut p = a.alloc(layout(8, 8));
            p.copy_from_nonoverlapping(b"abcdefgh".as_ptr(), 8);
            let mut size = 8;
            for new in [12, 100, 1000, 5000, 300, 40, 9] {
                p = a.realloc(p, layout(size, 8), new);
                assert!(!p.is_null());
                let kept = std::slice::from_raw_parts(p, 8.min(new));
                assert_eq!(kept, &b"abcdefgh"[..8.min(new)], "{size} -> {new}");
                size = new;
            }
            a.dealloc(p, layout(size, 8));
        }
    }

    /// However much is freed, at most `KEPT_BYTES` wait on the lists.
    #[test]
    fn the_lists_hold_at_most_the_bound() {
        let a = Allocator::new();
        let blocks: Vec<*mut u8> = (0..(KEPT_BYTES / 256) * 2)
            .map(|_| unsafe { a.alloc(layout(256, 8)) })
            .collect();
        for p in blocks {
            unsafe { a.dealloc(p, layout(256, 8)) };
        }
        assert_eq!(unsafe { (*a.lists.get()).kept }, KEPT_BYTES);
    }
}

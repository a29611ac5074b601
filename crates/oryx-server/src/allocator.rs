//! The only module of the server with `unsafe`: two calls into glibc's allocator that tune how
//! much memory the server keeps between bursts of requests. Both are plain C calls with no
//! pointer arguments; each has its SAFETY note.
#![allow(unsafe_code)]

/// glibc raises its mmap threshold each time a large block is freed (up to 32 MB), after which
/// the large buffers of file and database reads come from the workers' arenas and stay there:
/// after a burst of 200 requests the server kept ~85 MB resident while idle (measured, markdown
/// backend, debug build). With the threshold fixed they are mapped and unmapped: ~24 MB.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn tune_allocator() {
    // SAFETY: mallopt changes a tuning parameter of the allocator, before the server's threads
    // start; it has no other effect.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn tune_allocator() {}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn trim_heap() {
    // SAFETY: malloc_trim only releases free memory of the allocator; it touches no live
    // allocation and may be called from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn trim_heap() {}

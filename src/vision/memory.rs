//! Memory for the vision path. Each frame allocates and frees the same large buffers (the outline
//! masks, component labels, the networks' batches). glibc hands a freed block of a few megabytes
//! back to the system and the next frame takes it again page by page: about a thousand page
//! faults a frame on the benchmark's 1280x720 table, some 8 % of its time.

/// Largest block the allocator serves from its heap rather than by a fresh mapping: a 1080p
/// frame's planes and labels are well under it.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HEAP_BLOCK_MAX: i32 = 32 << 20;

/// Free memory at the top of the heap kept for the next frame before any goes back to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const KEEP_FREE: i32 = 128 << 20;

/// Keeps freed frame buffers in the process for the next frame instead of returning them to the
/// system (glibc's `mallopt`; elsewhere nothing changes). Whether the allocator took the settings.
pub fn keep_freed_buffers() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only sets two of the allocator's thresholds, under its own lock; no
        // memory is touched.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, HEAP_BLOCK_MAX) == 1
                && libc::mallopt(libc::M_TRIM_THRESHOLD, KEEP_FREE) == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn glibc_takes_the_settings() {
        assert!(super::keep_freed_buffers());
    }
}

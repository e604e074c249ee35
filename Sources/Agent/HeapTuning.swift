import CMalloc

/// glibc malloc's settings for a long-running agent that hostile clients can feed bursts of
/// large messages.
///
/// By default glibc raises its mmap threshold to the size of every mmapped block freed (up to
/// 32 MiB), so after one burst of 1 MB payloads every later large block comes from the heap
/// arenas, and what a burst leaves there stays resident: measured on `make chaos`, +27 MB after
/// the run settled. A fixed threshold keeps each block over 128 KiB in a mapping of its own,
/// returned to the kernel when freed.
enum HeapTuning {
    /// Seconds between the agent's trims (one a tick).
    static let trimIntervalTicks = 10
    /// A reply at least this large is followed by a trim: a 10,000-tick ruler builds a tree of
    /// several megabytes, which would otherwise stay resident.
    static let largeReplyBytes = 64 * 1024

    /// glibc's default starting threshold, made fixed.
    static let mmapThreshold: Int32 = 128 * 1024

    /// Fixes the mmap threshold. Call once, before the threads start.
    static func apply() {
        _ = mallopt(M_MMAP_THRESHOLD, mmapThreshold)
    }

    /// Hands the free pages of every arena back to the kernel: after a burst, what the heap
    /// freed stays resident until then. A few milliseconds on a small heap.
    static func trim() {
        _ = malloc_trim(0)
    }
}

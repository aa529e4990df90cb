#if os(Linux)
import Glibc

/// Maps a mapping's pages in on a thread of its own (`madvise(MADV_POPULATE_READ)`), and unmaps
/// one no longer read, so that the thread reading the mapping stops neither for page faults nor
/// for unmapping: ``FileWindow`` hands it the next part of a file, and the part before, while the
/// current part is read.
///
/// One request at a time: ``hand(unmapping:populating:count:)`` hands the ranges over, after
/// waiting for the request before; ``wait()`` returns once the thread is done with it, and comes
/// before a range handed to be populated is unmapped. Nothing else is shared with the thread,
/// which makes no other call: populating can only make a later page fault unnecessary, never
/// change what is read.
///
/// Why a thread and these calls (Benchmarks/results.md, 2026-11-27 (prefetch)): the
/// file is in the page cache, so what the reading thread pays for the file is the kernel entering
/// its pages into the page table (a fault for every 16 pages) and taking them out again.
/// `MADV_WILLNEED` only reads ahead into the page cache and enters nothing, so it saves nothing
/// here; populating and unmapping on the machine's other core do. A second thread frames and
/// decodes nothing: the records are read, in order, by the caller's thread alone.
final class PagePrefetcher {
    /// `MADV_POPULATE_READ` (Linux 5.14): fault the range's pages in, readable, or fail; never a
    /// signal, even for a page past the file's end.
    static let populateRead: Int32 = 22

    /// What the two threads share: the ranges to unmap and to populate, the stop, and two
    /// semaphores.
    private struct Shared {
        var start = sem_t()
        var done = sem_t()
        var unmap = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        var base: UnsafeMutableRawPointer?
        var count = 0
        var stop = false
    }

    private let shared: UnsafeMutablePointer<Shared>
    private var thread = pthread_t()
    /// A range has been handed over and not waited for.
    private var pending = false

    /// Nil when the kernel has no `MADV_POPULATE_READ` (asked about `page`, a mapped page's
    /// address: a range of length 0 is refused only for a kind of advice unknown) or no thread
    /// can be started.
    init?(page: UnsafeMutableRawPointer) {
        guard madvise(page, 0, Self.populateRead) == 0 else { return nil }
        shared = .allocate(capacity: 1)
        shared.initialize(to: Shared())
        sem_init(&shared.pointee.start, 0, 0)
        sem_init(&shared.pointee.done, 0, 0)
        let started = pthread_create(
            &thread, nil,
            { raw in
                let shared = raw.unsafelyUnwrapped.assumingMemoryBound(to: Shared.self)
                while true {
                    while sem_wait(&shared.pointee.start) != 0 {}
                    if shared.pointee.stop { return nil }
                    if let old = shared.pointee.unmap.baseAddress { munmap(old, shared.pointee.unmap.count) }
                    _ = madvise(shared.pointee.base, shared.pointee.count, PagePrefetcher.populateRead)
                    sem_post(&shared.pointee.done)
                }
            }, shared)
        guard started == 0 else {
            Self.release(shared)
            return nil
        }
    }

    deinit {
        wait()
        shared.pointee.stop = true
        sem_post(&shared.pointee.start)
        pthread_join(thread, nil)
        Self.release(shared)
    }

    private static func release(_ shared: UnsafeMutablePointer<Shared>) {
        sem_destroy(&shared.pointee.start)
        sem_destroy(&shared.pointee.done)
        shared.deinitialize(count: 1)
        shared.deallocate()
    }

    /// Hands `old`, a mapping no longer read (if any), to the thread to unmap, and the `count`
    /// mapped bytes from `base` (page-aligned) to populate, once it is done with the request
    /// before.
    func hand(unmapping old: UnsafeMutableRawBufferPointer, populating base: UnsafeMutableRawPointer, count: Int) {
        wait()
        shared.pointee.unmap = old
        shared.pointee.base = base
        shared.pointee.count = count
        pending = true
        sem_post(&shared.pointee.start)
    }

    /// Returns once the thread is done with the range handed over last (at once if none is).
    func wait() {
        guard pending else { return }
        while sem_wait(&shared.pointee.done) != 0 {}
        pending = false
    }
}
#endif

#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import Glibc

extension LiveSource {
    /// Stops a ``LiveSource`` from any thread: a signal handler's dispatch source, a timer, a UI.
    ///
    /// It is a pipe: ``stop()`` writes a byte, and the source polls the pipe's read end beside its
    /// own descriptor, so a stop wakes a waiting ``LiveSource/next(until:)`` at once. The pipe is
    /// never drained, so the stop is final. Keep the stopper as long as you may call it; it
    /// outlives the source if you hold it.
    public final class Stopper: Sendable {
        private let readEnd: Int32
        private let writeEnd: Int32

        init() throws(CaptureError) {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else {
                throw CaptureError.live("cannot create the stop pipe: \(LiveSource.message(errno))")
            }
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
            readEnd = ends[0]
            writeEnd = ends[1]
        }

        deinit {
            close(readEnd)
            close(writeEnd)
        }

        /// Asks the source to stop. Async-signal-safe in effect (one `write(2)`); calling it more
        /// than once is harmless.
        public func stop() {
            var byte: UInt8 = 1
            _ = write(writeEnd, &byte, 1)
        }

        /// True once ``stop()`` has been called.
        public var isStopped: Bool {
            var entry = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, 0) > 0
        }

        enum Readiness: Equatable {
            /// The descriptor at this position in the list is readable.
            case readable(Int)
            case stopped, timedOut
        }

        /// Waits until `first` or `second` is readable (or has hung up, or has an error: the read
        /// will tell), the stop is asked, or `deadline` passes. A stop wins over data, and `first`
        /// over `second`.
        func wait(for first: Int32, _ second: Int32? = nil, until deadline: ContinuousClock.Instant?, source: String)
            throws(CaptureError) -> Readiness
        {
            var entries = (
                pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: first, events: Int16(POLLIN), revents: 0),
                pollfd(fd: second ?? -1, events: Int16(POLLIN), revents: 0)
            )
            let count: nfds_t = second == nil ? 2 : 3
            while true {
                var timeout: Int32 = -1
                if let deadline {
                    let left = deadline - .now
                    if left <= .zero {
                        timeout = 0
                    } else {
                        let (seconds, attoseconds) = left.components
                        let milliseconds = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                        timeout = Int32(clamping: milliseconds)
                    }
                }
                let result = withUnsafeMutableBytes(of: &entries) { raw in
                    poll(raw.baseAddress!.assumingMemoryBound(to: pollfd.self), count, timeout)
                }
                if result < 0 {
                    if errno == EINTR { continue }
                    throw CaptureError.live("\(source): waiting for data failed: \(LiveSource.message(errno))")
                }
                if entries.0.revents != 0 { return .stopped }
                if entries.1.revents != 0 { return try Self.readable(0, entries.1.revents, source: source) }
                if entries.2.revents != 0 { return try Self.readable(1, entries.2.revents, source: source) }
                if let deadline, ContinuousClock.now >= deadline { return .timedOut }
            }
        }

        private static func readable(_ position: Int, _ revents: Int16, source: String) throws(CaptureError)
            -> Readiness
        {
            if revents & Int16(POLLNVAL) != 0 { throw CaptureError.live("\(source): the descriptor is not open") }
            return .readable(position)
        }
    }
}
#endif

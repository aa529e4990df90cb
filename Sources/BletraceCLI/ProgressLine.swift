import BLETrace
import Foundation
import Glibc

/// The progress line of a long run, on standard error: bytes read of the file's size and records
/// per second, rewritten in place (`\r`) about four times a second and erased at the end.
///
/// Shown only when standard error is a terminal, for a file of ``minimumSize`` or more, once a
/// run has taken half a second; never with `--quiet`, and never when the command's own output
/// goes to the same terminal as it is made (the line would land between output lines). The
/// environment variable `BLETRACE_PROGRESS=always` drops the size and time thresholds (for tests),
/// not the terminal check.
struct ProgressLine {
    static let minimumSize: Int64 = 16 << 20

    private let name: String
    private let size: Int64
    private let start: Double
    private let eager: Bool
    private var records = 0
    private var lastShown: Double
    private var shown = false

    /// Nil when no line is to be shown. `streamsOutput`: the command writes its output while it
    /// reads (decode), rather than at the end.
    init?(path: String, quiet: Bool, streamsOutput: Bool, toFile: Bool) {
        guard !quiet, isatty(STDERR_FILENO) == 1 else { return nil }
        if streamsOutput, !toFile, isatty(STDOUT_FILENO) == 1 { return nil }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        eager = getenv("BLETRACE_PROGRESS").map { String(cString: $0) == "always" } ?? false
        guard eager || Int64(info.st_size) >= Self.minimumSize else { return nil }
        name = path
        size = Int64(info.st_size)
        start = Self.now()
        lastShown = eager ? -1 : start + 0.25  // the first line after half a second
    }

    /// Counts a record; every 16,384 records (and for each when eager), looks at the clock.
    @inline(__always) mutating func advance(_ record: CaptureRecord) {
        records += 1
        if eager || records & 0x3FFF == 0 { tick(record.fileOffset) }
    }

    private mutating func tick(_ offset: Int64) {
        let now = Self.now()
        guard now - lastShown >= 0.25 else { return }
        lastShown = now
        shown = true
        let elapsed = max(now - start, 1e-6)
        let percent = size > 0 ? Int(offset * 100 / size) : 100
        let rate = Double(records) / elapsed
        let rateText =
            rate >= 1e6 ? "\(tenths(rate / 1e6)) M" : rate >= 1e3 ? "\(tenths(rate / 1e3)) k" : "\(Int(rate))"
        Output.standardError(
            "\r\u{1B}[K\(name): \(tenths(Double(offset) / 1e6)) of \(tenths(Double(size) / 1e6)) MB (\(percent) %), \(rateText) records/s"
        )
    }

    /// Erases the line, if one was shown.
    mutating func finish() {
        if shown { Output.standardError("\r\u{1B}[K") }
        shown = false
    }

    private func tenths(_ value: Double) -> String {
        let scaled = Int((value * 10).rounded())
        return "\(scaled / 10).\(scaled % 10)"
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// The progress line of a run counted in steps rather than bytes (the kill-point sweep's
/// replays): `sweep terminate: 120 of 1,160 replays`, on standard error under the same rules as
/// ``ProgressLine`` (a terminal, not `--quiet`, after half a second unless
/// `BLETRACE_PROGRESS=always`), rewritten at most four times a second and erased at the end.
/// Safe to advance from several threads.
final class StepProgress: @unchecked Sendable {
    private let name: String
    private let lock = NSLock()
    private var lastShown: Double
    private var shown = false

    /// Nil when no line is to be shown.
    init?(name: String, quiet: Bool) {
        guard !quiet, isatty(STDERR_FILENO) == 1 else { return nil }
        let eager = getenv("BLETRACE_PROGRESS").map { String(cString: $0) == "always" } ?? false
        self.name = name
        lastShown = eager ? -1 : ProgressLine.now() + 0.25  // the first line after half a second
    }

    /// `done` of `total` steps are done.
    func advance(_ done: Int, of total: Int, unit: String) {
        lock.lock()
        defer { lock.unlock() }
        let now = ProgressLine.now()
        guard now - lastShown >= 0.25 || (done == total && shown) else { return }
        lastShown = now
        shown = true
        Output.standardError("\r\u{1B}[K\(name): \(done) of \(total) \(unit)")
    }

    /// Erases the line, if one was shown.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if shown { Output.standardError("\r\u{1B}[K") }
        shown = false
    }
}

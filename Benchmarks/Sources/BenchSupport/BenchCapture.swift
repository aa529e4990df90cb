#if canImport(Glibc)
import Glibc
#endif

/// The generated 1,000,000-record capture the whole-file benchmarks read: `BLETRACE_BENCH_CAPTURE`,
/// or where `make bench` writes it.
public enum BenchCapture {
    public static let path: String = {
        if let value = getenv("BLETRACE_BENCH_CAPTURE") { return String(cString: value) }
        return "/tmp/bletrace-bench/capture-1M.btsnoop"
    }()

    /// Whether the capture is there; when it is not, says so for `target`.
    public static func isThere(for target: String) -> Bool {
        guard access(path, R_OK) == 0 else {
            print("\(target): \(path) is missing; run `make bench` (it generates it) or generate-capture")
            return false
        }
        return true
    }
}

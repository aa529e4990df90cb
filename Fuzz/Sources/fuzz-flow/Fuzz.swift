import BLETrace
import Flow
import FuzzSupport

/// The flow parser, the streaming flow reader and the diff: the input is two flows separated by
/// a NUL byte (the second empty when there is none), parsed in memory and read from a file, then
/// compared both ways with a small limit (so that the limit is reached too).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: count)
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let first = UnsafeRawBufferPointer(rebasing: bytes[..<split])
    let second =
        split < bytes.count
        ? UnsafeRawBufferPointer(rebasing: bytes[(split + 1)...]) : UnsafeRawBufferPointer(start: nil, count: 0)
    var sum = 0
    let expected = try? Flow(parsing: String(decoding: first, as: UTF8.self), source: "expected")
    let actual = try? Flow(parsing: String(decoding: second, as: UTF8.self), source: "actual")
    if let expected, let actual {
        let diff = FlowDiff(expected: expected, actual: actual, limit: 20)
        sum &+= diff.report(expectedName: "e", actualName: "a").utf8.count
        sum &+= expected.text.utf8.count
    }
    // The streaming reader on the first flow, against the second in memory as a file too.
    let path = MemoryFile.path(holding: first)
    if let reader = try? FlowReader(path: path, streamWait: .zero) {
        while let located = try? reader.next() {
            sum &+= located.event.line.utf8.count
            if let again = reader.event(at: located.offset) { sum &+= again.signature.utf8.count }
        }
    }
    if let reader = try? FlowReader(path: path, streamWait: .zero),
        let same = try? FlowReader(path: path, streamWait: .zero),
        let diff = try? FlowDiff.compare(expected: reader, actual: same, limit: 20)
    {
        precondition(diff.isEqual, "a flow differs from itself")
        sum &+= diff.expectedCount
    }
    if sum == 0x7fff_ffff { print(sum) }
    return 0
}

import Dispatch
import Foundation

// Timers in capture time (Formats/porting.md, "Timers in a replay").
//
// An app's `DispatchQueue.main.asyncAfter(deadline: .now() + 10) { … }` in a virtual replay would
// run on the wall clock, after the replay is over: a connect timeout never fires. libdispatch has
// no hook for it (the Swift runtime's hooks see only Swift concurrency's jobs), so this module
// declares `asyncAfter(deadline:execute:)` on `DispatchQueue`, the form without `qos:` and
// `flags:`: in a file that imports `BLETraceCoreBluetooth`, the call
// `queue.asyncAfter(deadline: …) { … }` resolves to it rather than to Dispatch's, whose `qos:` and
// `flags:` would take their defaults (Swift ranks first the overload that fills no default
// parameter). Measured with Swift 6.3: the call resolves to this one in both language modes, also
// where the file imports Foundation and Dispatch itself. Called from code a virtual replay runs,
// the work runs at the capture's time (``BluetoothSystem/asyncAfter(_:on:isMain:_:)``); anywhere
// else the call is Dispatch's, unchanged.
extension DispatchQueue {
    /// `asyncAfter(deadline:execute:)`: in a virtual replay, `work` runs when the capture's clock
    /// reaches the deadline (measured from the call), on this queue as the replay runs the
    /// delegate's (the main queue: the replay's own thread); elsewhere, as Dispatch's.
    public func asyncAfter(deadline: DispatchTime, execute work: @escaping @Sendable @convention(block) () -> Void) {
        let nanoseconds =
            deadline == .distantFuture
            ? nil : Int64(bitPattern: deadline.uptimeNanoseconds &- DispatchTime.now().uptimeNanoseconds)
        if runsInCaptureTime(after: nanoseconds, work) { return }
        asyncAfter(deadline: deadline, qos: .unspecified, flags: [], execute: work)
    }

    /// Hands `work` to the system running the calling code, when it keeps time for it: true when
    /// it took it. `nanoseconds` nil: never (a distant-future deadline). The delay is rounded to
    /// a tenth of a millisecond: the app's `.now()` was read a few microseconds before this
    /// call's, so `.now() + 0.1` measures 0.099998 here, and the capture's time would show it.
    private func runsInCaptureTime(after nanoseconds: Int64?, _ work: @escaping () -> Void) -> Bool {
        guard let system = BluetoothSystemContext.current else { return false }
        let seconds = nanoseconds.map { (Double(max(0, $0)) / 1e5).rounded() / 1e4 } ?? .infinity
        return system.asyncAfter(seconds, on: self, isMain: isMainQueue, work)
    }

    /// Whether this is the main queue. Each `DispatchQueue.main` is a new Swift object wrapping the
    /// same queue on Linux (`===` is false between two of them), so the queue is asked for a value
    /// set on the main queue only.
    var isMainQueue: Bool {
        Self.markMain
        return getSpecific(key: Self.mainKey) == true
    }

    private static let mainKey = DispatchSpecificKey<Bool>()
    private static let markMain: Void = DispatchQueue.main.setSpecific(key: mainKey, value: true)
}

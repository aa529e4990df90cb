import BLETrace
import Dispatch
import FuzzSupport

/// The replay: the input is a capture (any format), loaded as a cassette and played to every
/// reference app in virtual time (the replay is async; the fuzzer's thread waits for it), then
/// once more to the restoring app with the system's events: a termination midway, Bluetooth off
/// and on, a reset, and the user opening the app at the end.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let path = MemoryFile.path(holding: UnsafeRawBufferPointer(start: data, count: count))
    guard let (cassette, _) = try? Cassette.load(path: path) else { return 0 }
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        var sum = 0
        for entry in ReferenceApps.all {
            let flow = await ReplayEngine(cassette: cassette).run(entry.make(for: cassette), name: entry.name)
            sum &+= flow.text.utf8.count
        }
        let span = cassette.end.seconds(since: cassette.start)
        let engine = ReplayEngine(cassette: cassette)
        engine.events = [
            SystemEvent(.terminate, at: span / 2), SystemEvent(.powerOff, at: span * 0.6),
            SystemEvent(.powerOn, at: span * 0.7),
            SystemEvent(.reset, at: span * 0.8), SystemEvent(.launch, at: span + 0.001),
        ]
        let restoring = ReferenceApps.named("restoring")!
        sum &+= await engine.run(name: restoring.name) { restoring.make(for: cassette) }.text.utf8.count
        if sum == 0x7fff_ffff { print(sum) }
        done.signal()
    }
    done.wait()
    return 0
}

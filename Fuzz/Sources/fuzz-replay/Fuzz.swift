import BLETrace
import Dispatch
import FuzzSupport

/// The replay: the input is a capture (any format), loaded as a cassette and played to every
/// reference app in virtual time (the replay is async; the fuzzer's thread waits for it).
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
        if sum == 0x7fff_ffff { print(sum) }
        done.signal()
    }
    done.wait()
    return 0
}

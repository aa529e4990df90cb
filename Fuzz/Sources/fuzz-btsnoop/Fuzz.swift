import BLETrace
import FuzzSupport

/// The btsnoop reader (datalinks 1001, 1002, 2001): the input is a btsnoop file (its header added when missing).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: count)
    let path = MemoryFile.path(holding: bytes, after: Array("btsnoop\0".utf8))
    var sum = 0
    forEachRecord(path) { sum &+= touch($0) }
    blackHole(sum)
    return 0
}

@inline(never) func blackHole(_ value: Int) { if value == 0x7fff_ffff_ffff { print(value) } }

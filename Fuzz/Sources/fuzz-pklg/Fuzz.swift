import BLETrace
import FuzzSupport

/// The PacketLogger reader (either byte order): the input is the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: count)
    let path = MemoryFile.path(holding: bytes)
    var sum = 0
    forEachRecord(path) { sum &+= touch($0) }
    blackHole(sum)
    return 0
}

@inline(never) func blackHole(_ value: Int) { if value == 0x7fff_ffff_ffff { print(value) } }

import BLETrace
import FuzzSupport

/// Containers (Formats/containers.md): `CaptureContainer.open` on the input (gzip, zip through
/// ZIPFoundation, tar and .tar.gz through the tar walker, a bug report's text with its btsnooz
/// summary), under small limits so that a bomb is met quickly, then every member it unpacked read
/// to its end.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let path = MemoryFile.path(holding: UnsafeRawBufferPointer(start: data, count: count))
    let limits = ContainerLimits(memberBytes: 4 << 20, totalBytes: 8 << 20, summaryTextBytes: 1 << 20)
    guard let container = try? CaptureContainer.open(path: path, limits: limits) else { return 0 }
    var sum = 0
    for member in container.members {
        forEachRecord(member.extractedPath) { sum &+= touch($0) }
    }
    container.close()
    blackHole(sum)
    return 0
}

@inline(never) func blackHole(_ value: Int) { if value == 0x7fff_ffff_ffff { print(value) } }

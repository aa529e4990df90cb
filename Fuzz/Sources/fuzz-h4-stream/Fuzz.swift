import FuzzSupport
@testable import TraceFiles

/// The H4 stream decoder of the live sources: the input is an H4 byte stream, handed over in
/// pieces whose sizes come from the stream itself (bytes may arrive split anywhere).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: count)
    let decoder = H4StreamDecoder()
    var position = 0
    var piece = 1
    var sum = 0
    while position < bytes.count {
        let space = decoder.space()
        let size = min(space.count, bytes.count - position, piece)
        guard size > 0 else { return 0 }
        space.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[position..<position + size]))
        decoder.append(size)
        position += size
        // The next piece: 1 to 256 bytes, from the last byte copied.
        piece = Int(bytes[position - 1]) + 1
        do {
            while let packet = try decoder.next() {
                sum &+= Int(packet.kind.rawValue) &+ packet.bytes.count &+ Int(packet.offset)
            }
        } catch {
            return 0
        }
    }
    if sum == 0x7fff_ffff { print(sum) }
    return 0
}

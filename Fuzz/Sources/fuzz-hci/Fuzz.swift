import BLETrace
import FuzzSupport

/// The HCI command and event decoders, with their parameter tables: the input is the records of
/// a btsnoop H4 file (its header added when missing), each decoded as the packet its kind says and
/// described as `bletrace decode -v` would.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let path = MemoryFile.path(holding: UnsafeRawBufferPointer(start: data, count: count), after: btsnoopH4Header)
    var sum = 0
    forEachRecord(path) { record in
        switch record.kind {
        case .command:
            if let command = try? HCICommand.decode(record.bytes) { sum &+= String(describing: command).utf8.count }
            if let parameters = try? HCICommandParameters.decode(record.bytes) {
                sum &+= String(describing: parameters).utf8.count
            }
        case .event:
            if let event = try? HCIEvent.decode(record.bytes) { sum &+= String(describing: event).utf8.count }
            if let parameters = try? HCIEventParameters.decode(record.bytes) {
                sum &+= String(describing: parameters).utf8.count
            }
        default:
            if let packet = try? HCIPacket.decode(kind: record.kind, record.bytes) {
                sum &+= String(describing: packet).utf8.count
            }
        }
    }
    if sum == 0x7fff_ffff { print(sum) }
    return 0
}

import BLETrace
import FuzzSupport

/// ACL reassembly, L2CAP, ATT (with each response read knowing its request) and SMP: the input is
/// the records of a btsnoop H4 file (its header added when missing), decoded in order as
/// `bletrace decode` does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let path = MemoryFile.path(holding: UnsafeRawBufferPointer(start: data, count: count), after: btsnoopH4Header)
    var decoder = TraceDecoder()
    var sum = 0
    forEachRecord(path) { record in
        let decoded = decoder.decode(record)
        if let frame = decoded.l2cap { sum &+= frame.payload.count &+ Int(frame.channel.rawValue) }
        if let att = decoded.att { sum &+= String(describing: att).utf8.count }
        if let smp = decoded.smp { sum &+= String(describing: smp).utf8.count }
        if let fault = decoded.fault { sum &+= String(describing: fault).utf8.count }
        if let lost = decoded.lostFragments { sum &+= String(describing: lost).utf8.count }
    }
    if sum == 0x7fff_ffff { print(sum) }
    return 0
}

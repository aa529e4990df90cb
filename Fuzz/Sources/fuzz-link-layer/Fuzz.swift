import BLETrace
import FuzzSupport
@testable import LinkLayer

/// The link-layer decoder (`LinkLayerDecoder`: sniffer headers, advertising and data PDUs, LL
/// control, reassembly, ATT, SMP) behind the pcap reader of the over-the-air link types 251, 256
/// and 272: the input is a pcap or pcapng file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let path = MemoryFile.path(holding: UnsafeRawBufferPointer(start: data, count: count))
    guard let reader = try? CaptureReader(path: path, streamWait: .zero, linkLayer: true),
        let linkType = reader.format.linkLayerType
    else { return 0 }
    var decoder = LinkLayerDecoder(linkType: linkType)
    var sum = 0
    while let record = try? reader.next() {
        let decoded = decoder.decode(record.bytes, time: record.timestamp, index: record.index)
        if let packet = decoded.packet { sum &+= Int(packet.accessAddress & 0xFF) &+ packet.protectedBytes.count }
        if let control = decoded.control { sum &+= String(describing: control).utf8.count }
        if let att = decoded.att { sum &+= String(describing: att).utf8.count }
        if let smp = decoded.smp { sum &+= String(describing: smp).utf8.count }
        if let frame = decoded.l2cap { sum &+= frame.payload.count }
        if let fault = decoded.fault ?? decoded.lostFragments { sum &+= fault.description.utf8.count }
    }
    if sum == 0x7fff_ffff { print(sum) }
    return 0
}

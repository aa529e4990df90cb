// generate-capture OUT.btsnoop [--records N] [--seed S]
//
// Writes a deterministic btsnoop (datalink 1002, H4) capture of N records of realistic LE central
// traffic, through the main package's CaptureWriter: up to three connections at a time, each
// with LE Create Connection, Command Status and LE Connection Complete; on two connections in
// three, as phones do, data length extension to 251 bytes (LE Set Data Length, LE Data Length
// Change) and the 2M PHY (LE Set PHY, LE PHY Update Complete); MTU exchange; GATT discovery
// (primary services, characteristics, descriptors) ending in Attribute Not Found Error
// Responses; reads (some refused with Read Not Permitted or Insufficient Authentication); CCCD
// writes; many notifications of 20 to 244 bytes, the large ones fragmented over several 27-byte
// ACL packets where the data length was not extended; Number Of Completed Packets events for
// what the host sent; and disconnections with reasons 0x08, 0x13, 0x16 (after a Disconnect
// command) and 0x3E.
import BenchSupport
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

struct Record {
    var kind: PacketKind
    var received: Bool
    var bytes: [UInt8]
}

/// One connection's whole story, as chunks of records; a chunk is written without other
/// connections' records in between (connection set-up must not interleave).
struct ConnectionScript {
    var chunks: [[Record]] = []
    var next = 0
}

func usage() -> Never {
    print("usage: generate-capture OUT.btsnoop [--records N] [--seed S]")
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var outPath: String?
var total = 1_000_000
var seed: UInt64 = 0xB1E7_1ACE
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--records":
        guard let value = arguments.first.flatMap(Int.init) else { usage() }
        total = value; arguments.removeFirst()
    case "--seed":
        guard let value = arguments.first.flatMap(UInt64.init) else { usage() }
        seed = value; arguments.removeFirst()
    case "-h", "--help": usage()
    default:
        guard outPath == nil else { usage() }
        outPath = argument
    }
}
guard let outPath else { usage() }

var rng = SplitMix64(seed: seed)

@MainActor func makeScript(handle: UInt16, serial: Int) -> ConnectionScript {
    var script = ConnectionScript()
    let peer: [UInt8] = (0..<6).map { _ in UInt8.random(in: 0...255, using: &rng) }
    // Set-up: one chunk.
    script.chunks.append([
        Record(kind: .command, received: false, bytes: Packets.leCreateConnection(peer: peer)),
        Record(kind: .event, received: true, bytes: Packets.commandStatus(opcode: 0x200D)),
        Record(kind: .event, received: true, bytes: Packets.leConnectionComplete(handle: handle, peer: peer)),
    ])
    // One connection in 25 fails to be established (0x3E) right after completing.
    if serial % 25 == 24 {
        script.chunks.append([
            Record(kind: .event, received: true, bytes: Packets.disconnectionComplete(handle: handle, reason: 0x3E))
        ])
        return script
    }

    // Data length extension and the 2M PHY on two connections in three; the LE default of 27
    // bytes of ACL data (and the 1M PHY) on the others.
    let extended = serial % 3 != 2
    let aclMaxData = extended ? 251 : 27
    if extended {
        script.chunks.append([
            Record(
                kind: .command, received: false, bytes: Packets.leSetDataLength(handle: handle, octets: 251, time: 2120)
            ),
            Record(
                kind: .event, received: true,
                bytes: Packets.commandComplete(opcode: 0x2022, [0x00] + Packets.le16(handle))),
            Record(
                kind: .event, received: true, bytes: Packets.leDataLengthChange(handle: handle, octets: 251, time: 2120)
            ),
        ])
        script.chunks.append([
            Record(kind: .command, received: false, bytes: Packets.leSetPHY(handle: handle, phys: 0x02)),
            Record(kind: .event, received: true, bytes: Packets.commandStatus(opcode: 0x2032)),
            Record(kind: .event, received: true, bytes: Packets.lePHYUpdateComplete(handle: handle, phy: 0x02)),
        ])
    }

    var sentSinceCompleted: UInt16 = 0
    func send(_ att: [UInt8]) {
        var chunk: [Record] = []
        for packet in Packets.aclFragments(handle: handle, received: false, att: att, maxData: aclMaxData) {
            chunk.append(Record(kind: .acl, received: false, bytes: packet))
            sentSinceCompleted += 1
        }
        if sentSinceCompleted >= 2 || Bool.random(using: &rng) {
            chunk.append(
                Record(
                    kind: .event, received: true,
                    bytes: Packets.numberOfCompletedPackets([(handle, sentSinceCompleted)])))
            sentSinceCompleted = 0
        }
        script.chunks.append(chunk)
    }
    func receive(_ att: [UInt8]) {
        script.chunks.append(
            Packets.aclFragments(handle: handle, received: true, att: att, maxData: aclMaxData)
                .map { Record(kind: .acl, received: true, bytes: $0) })
    }

    // MTU exchange.
    send(Packets.attExchangeMTURequest(247))
    receive(Packets.attExchangeMTUResponse(247))

    // Primary service discovery: two responses, then Attribute Not Found.
    send(Packets.attReadByGroupTypeRequest(start: 0x0001, end: 0xFFFF, type: 0x2800))
    receive(
        Packets.attReadByGroupTypeResponse([
            (0x0001, 0x0007, 0x1800), (0x0008, 0x000B, 0x1801), (0x000C, 0x0020, 0x180D),
        ]))
    send(Packets.attReadByGroupTypeRequest(start: 0x0021, end: 0xFFFF, type: 0x2800))
    receive(Packets.attReadByGroupTypeResponse([(0x0021, 0x0030, 0x180F)]))
    send(Packets.attReadByGroupTypeRequest(start: 0x0031, end: 0xFFFF, type: 0x2800))
    receive(Packets.attErrorResponse(request: 0x10, handle: 0x0031, error: 0x0A))

    // Characteristic discovery in the heart-rate-like service, ending in Attribute Not Found.
    let characteristics: [(UInt16, [UInt8])] = (0..<4).map { i in
        let declaration = UInt16(0x000D + 4 * i)
        return (declaration, [0x12] + Packets.le16(declaration + 1) + Packets.le16(UInt16(0x2A37 + i)))
    }
    send(Packets.attReadByTypeRequest(start: 0x000C, end: 0x0020, type: 0x2803))
    receive(Packets.attReadByTypeResponse(valueLength: 5, characteristics))
    send(Packets.attReadByTypeRequest(start: 0x001C, end: 0x0020, type: 0x2803))
    receive(Packets.attErrorResponse(request: 0x08, handle: 0x001C, error: 0x0A))

    // Descriptor discovery.
    send(Packets.attFindInformationRequest(start: 0x000F, end: 0x0010))
    receive(Packets.attFindInformationResponse([(0x000F, 0x2902), (0x0010, 0x2901)]))
    send(Packets.attFindInformationRequest(start: 0x0011, end: 0x0011))
    receive(Packets.attErrorResponse(request: 0x04, handle: 0x0011, error: 0x0A))

    // Reads: one refused in several ways.
    send(Packets.attReadRequest(0x0003))
    receive(Packets.attReadResponse(Array("bletrace-peer-\(serial)".utf8)))
    send(Packets.attReadRequest(0x0013))
    switch serial % 3 {
    case 0: receive(Packets.attErrorResponse(request: 0x0A, handle: 0x0013, error: 0x02))  // Read Not Permitted
    // Insufficient Authentication
    case 1: receive(Packets.attErrorResponse(request: 0x0A, handle: 0x0013, error: 0x05))
    default: receive(Packets.attReadResponse([0x64]))
    }

    // Subscribe (CCCD write).
    send(Packets.attWriteRequest(0x000F, [0x01, 0x00]))
    receive(Packets.attWriteResponse)

    // Traffic: mostly notifications, some reads and write commands.
    let notifications = Int.random(in: 300...3000, using: &rng)
    for n in 0..<notifications {
        let roll = Int.random(in: 0..<100, using: &rng)
        if roll < 70 {
            receive(Packets.attNotification(0x000E, (0..<20).map { UInt8(truncatingIfNeeded: $0 &+ n) }))
        } else if roll < 88 {
            let length = Int.random(in: 21...244, using: &rng)  // over 2 to 10 ACL packets without DLE
            receive(Packets.attNotification(0x000E, (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ n) }))
        } else if roll < 94 {
            send(Packets.attReadRequest(0x0016))
            receive(Packets.attReadResponse([UInt8(truncatingIfNeeded: n), 0x00]))
        } else if roll < 98 {
            send(Packets.attWriteCommand(0x001A, [0x01, UInt8(truncatingIfNeeded: n)]))
        } else {
            send(Packets.attWriteRequest(0x001A, [0x02, UInt8(truncatingIfNeeded: n)]))
            receive(Packets.attWriteResponse)
        }
    }

    // Disconnection with a reason.
    switch Int.random(in: 0..<4, using: &rng) {
    case 0:  // Local host terminated, after our Disconnect command.
        script.chunks.append([
            Record(kind: .command, received: false, bytes: Packets.disconnect(handle: handle, reason: 0x13)),
            Record(kind: .event, received: true, bytes: Packets.commandStatus(opcode: 0x0406)),
            Record(kind: .event, received: true, bytes: Packets.disconnectionComplete(handle: handle, reason: 0x16)),
        ])
    case 1:
        script.chunks.append([
            Record(kind: .event, received: true, bytes: Packets.disconnectionComplete(handle: handle, reason: 0x13))
        ])
    default:
        script.chunks.append([
            Record(kind: .event, received: true, bytes: Packets.disconnectionComplete(handle: handle, reason: 0x08))
        ])
    }
    return script
}

let writer: CaptureWriter
do {
    writer = try CaptureWriter(path: outPath, format: .btsnoop(datalink: 1002))
} catch {
    print("generate-capture: \(error)")
    exit(1)
}

var written = 0
var bytesWritten = 0
var clock = Timestamp(microseconds: 1_767_225_600_000_000)  // 2026-01-01T00:00:00Z
var active: [(handle: UInt16, script: ConnectionScript)] = []
var serial = 0
var freeHandles = [UInt16](0x0040...0x004F)

@MainActor func write(_ record: Record) throws {
    clock = clock.adding(microseconds: Int64.random(in: 50...2500, using: &rng))
    try record.bytes.withUnsafeBytes { bytes in
        _ = try writer.write(
            CaptureRecord(
                index: written, fileOffset: 0, timestamp: clock,
                direction: record.received ? .received : .sent, kind: record.kind,
                originalLength: bytes.count, bytes: bytes))
    }
    written += 1
    bytesWritten += record.bytes.count
}

do {
    while written < total {
        // Keep up to three connections open; start a new one when there is room.
        if active.count < 3, !freeHandles.isEmpty, active.isEmpty || Int.random(in: 0..<200, using: &rng) == 0 {
            let handle = freeHandles.removeFirst()
            active.append((handle, makeScript(handle: handle, serial: serial)))
            serial += 1
        }
        let pick = Int.random(in: 0..<active.count, using: &rng)
        let chunk = active[pick].script.chunks[active[pick].script.next]
        active[pick].script.next += 1
        for record in chunk where written < total { try write(record) }
        if active[pick].script.next == active[pick].script.chunks.count {
            freeHandles.append(active[pick].handle)
            active.remove(at: pick)
        }
    }
    try writer.close()
} catch {
    print("generate-capture: \(error)")
    exit(1)
}
print("generate-capture: \(outPath): \(written) records, \(bytesWritten) bytes of packets, \(serial) connections")

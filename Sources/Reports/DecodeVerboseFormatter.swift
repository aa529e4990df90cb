import ATT
import HCI
import Lifecycle
import TraceFiles
import Wire

/// Writes the `-v` lines of `bletrace decode`, every field of every layer under a record's line
/// (``DecodeLineFormatter``), into a reused ``LineBuffer``.
///
/// The lines are those ``FieldPrinter`` writes by reflection (``detail(_:_:)``). For the records
/// traffic and phones' logs are made of, ``fields(_:_:to:)`` writes the same bytes field by field
/// with nothing allocated (here and in DecodeVerboseFields.swift); `DecodeFormattersTests` and
/// `DecodeVerboseFieldsTests` compare the two.
public enum DecodeVerboseFormatter {
    /// The `-v` lines of a record: ``fields(_:_:to:)``'s, or for a record it does not write,
    /// ``detail(_:_:)``'s.
    public static func write(_ record: CaptureRecord, _ decoded: DecodedRecord, to buffer: inout LineBuffer) {
        guard !fields(record, decoded, to: &buffer) else { return }
        for line in detail(record, decoded) {
            buffer.string(line)
            buffer.byte(0x0A)
        }
    }

    /// The `-v` lines under a record's line, as `detail(_:_:)` writes them through
    /// ``FieldPrinter``, for the records traffic is made of (ACL data: fragments, notifications,
    /// writes, and through `attFields` ATT discovery, reads and their answers; LE signaling
    /// connection parameter updates; Number Of Completed Packets) and the commonest HCI of phones'
    /// logs (``commonHCI(_:to:)``); false, with nothing written, for any other record
    /// (``write(_:_:to:)`` writes `detail(_:_:)`'s lines instead).
    public static func fields(_ record: CaptureRecord, _ decoded: DecodedRecord, to buffer: inout LineBuffer) -> Bool {
        // Number Of Completed Packets: flow control, the most frequent event.
        if record.kind == .event, record.bytes.first == HCIEventCode.numberOfCompletedPackets.rawValue,
            decoded.fault == nil, decoded.lostFragments == nil,
            case .numberOfCompletedPackets(let list)? = try? HCIEventParameters.decode(record.bytes)
        {
            buffer.text("        HCI event: numberOfCompletedPackets\n          ")
            buffer.decimal(UInt64(list.count))
            buffer.text(" entries\n")
            for (index, entry) in list.enumerated() {
                buffer.text("            [")
                buffer.decimal(UInt64(index))
                buffer.text("]\n              handle: ")
                buffer.integer(entry.handle)
                buffer.text("\n              completed packets: ")
                buffer.integer(entry.completedPackets)
                buffer.byte(0x0A)
            }
            return true
        }
        // The commonest other events and commands of phones' logs (`commonHCI`).
        if record.kind == .event || record.kind == .command, decoded.fault == nil, decoded.lostFragments == nil {
            return commonHCI(record, to: &buffer)
        }
        guard record.kind == .acl || record.kind == .sco || record.kind == .iso || record.kind == .other,
            decoded.fault == nil, decoded.lostFragments == nil, decoded.smp == nil
        else { return false }
        var handle: UInt16 = 0
        var value = UnsafeRawBufferPointer(start: nil, count: 0)
        var label: StaticString = ""
        if let pdu = decoded.att {
            switch pdu {
            case .handleValueNotification(let attribute, let bytes):
                (handle, value, label) = (attribute, bytes, "handleValueNotification")
            case .writeCommand(let attribute, let bytes): (handle, value, label) = (attribute, bytes, "writeCommand")
            case .writeRequest(let attribute, let bytes): (handle, value, label) = (attribute, bytes, "writeRequest")
            case .handleValueIndication(let attribute, let bytes):
                (handle, value, label) = (attribute, bytes, "handleValueIndication")
            default:
                // Discovery, reads and their answers (`attFields`), written below.
                guard Self.hasFieldLines(pdu) else { return false }
            }
        }
        // LE signaling: its connection parameter updates (`signaling`); the L2CAP line alone for
        // a PDU that does not decode.
        var signaling: LESignalingPDU?
        if let l2cap = decoded.l2cap, l2cap.channel == .leSignaling {
            signaling = try? LESignalingPDU.decode(l2cap.payload)
            switch signaling?.command {
            case .connectionParameterUpdateRequest?, .connectionParameterUpdateResponse?, nil: break
            default: return false
            }
        }
        if let l2cap = decoded.l2cap {
            buffer.text("        L2CAP: channel ")
            buffer.string(l2cap.channel.description)
            buffer.text(", ")
            buffer.decimal(UInt64(l2cap.payload.count))
            buffer.text(" bytes\n")
        }
        if let signaling { _ = Self.signaling(signaling, to: &buffer) }
        if let pdu = decoded.att, label.utf8CodeUnitCount == 0 {
            _ = attFields(pdu, to: &buffer)
        } else if decoded.att != nil {
            buffer.text("        ATT: ")
            buffer.text(label)
            buffer.text("\n          handle: ")
            buffer.integer(handle)
            buffer.text("\n          value: ")
            buffer.bytesField(value)
            buffer.byte(0x0A)
        } else if decoded.l2cap == nil, !record.bytes.isEmpty {
            buffer.text("        bytes: ")
            buffer.hexBytes(record.bytes)
            buffer.byte(0x0A)
        }
        return true
    }

    /// The `-v` lines of Command Complete, Command Status, BR/EDR Connection Complete, LE Extended
    /// Advertising Report, an event or a command kept as bytes (vendor ones), Read RSSI, LE Set
    /// Extended Scan Enable, and through `command(_:to:)`, `event(_:to:)` and `returnParameters(_:to:)`
    /// (DecodeVerboseFields.swift) the other commands and events of scanning, advertising and
    /// connection set-up; false, with nothing written, for any other.
    private static func commonHCI(_ record: CaptureRecord, to buffer: inout LineBuffer) -> Bool {
        if record.kind == .command {
            switch try? HCICommandParameters.decode(record.bytes) {
            case .unknown(let opcode, let parameters)?:
                buffer.text("        HCI command: unknown\n          opcode: ")
                buffer.string(opcode.description)
                buffer.text("\n          parameters: ")
                buffer.bytesField(parameters)
            case .readRSSI(let handle)?:
                buffer.text("        HCI command: readRSSI\n          handle: ")
                buffer.integer(handle)
            case .leSetExtendedScanEnable(let scan)?:
                buffer.text("        HCI command: leSetExtendedScanEnable\n          enable: ")
                buffer.integer(UInt16(scan.enable))
                buffer.text("\n          filter duplicates: ")
                buffer.integer(UInt16(scan.filterDuplicates))
                buffer.text("\n          duration: ")
                buffer.integer(scan.duration)
                buffer.text("\n          period: ")
                buffer.integer(scan.period)
            case let parameters?:
                return command(parameters, to: &buffer)
            case nil:
                return false
            }
            buffer.byte(0x0A)
            return true
        }
        switch try? HCIEventParameters.decode(record.bytes) {
        case .commandComplete(let complete)?:
            let returned: (label: StaticString, status: HCIStatus?, bytes: UnsafeRawBufferPointer)
            switch complete.returnParameters {
            case .status(let status): returned = ("status: ", status, complete.rawReturnParameters)
            case .unknown(let bytes): returned = ("unknown: ", nil, bytes)
            case .readRSSI, .connectionHandle, .readEncryptionKeySize, .readBDADDR, .readLocalSupportedFeatures,
                .leSetExtendedAdvertisingParameters, .readLocalVersionInformation, .leReadBufferSize:
                returned = ("", nil, complete.rawReturnParameters)
            }
            buffer.text("        HCI event: commandComplete\n          num packets: ")
            buffer.integer(UInt16(complete.numPackets))
            buffer.text("\n          opcode: ")
            buffer.string(complete.opcode.description)
            if returned.label.utf8CodeUnitCount == 0 {
                // Return parameters with fields of their own, a line each.
                buffer.byte(0x0A)
                returnParameters(complete.returnParameters, to: &buffer)
                buffer.text("          raw return parameters: ")
                buffer.bytesField(complete.rawReturnParameters)
                buffer.byte(0x0A)
                return true
            }
            buffer.text("\n          return parameters: ")
            buffer.text(returned.label)
            if let status = returned.status {
                buffer.string(status.description)
            } else {
                buffer.bytesField(returned.bytes)
            }
            buffer.text("\n          raw return parameters: ")
            buffer.bytesField(complete.rawReturnParameters)
            buffer.byte(0x0A)
        case .commandStatus(let status, let numPackets, let opcode)?:
            buffer.text("        HCI event: commandStatus\n          status: ")
            buffer.string(status.description)
            buffer.text("\n          num packets: ")
            buffer.integer(UInt16(numPackets))
            buffer.text("\n          opcode: ")
            buffer.string(opcode.description)
            buffer.byte(0x0A)
        case .le(.extendedAdvertisingReport(let reports))?:
            // Each report's fields; its advertising data's structures through FieldPrinter.
            buffer.text("        HCI event: le\n          extendedAdvertisingReport\n            ")
            buffer.decimal(UInt64(reports.count))
            buffer.text(" entries\n")
            for (index, report) in reports.enumerated() {
                buffer.text("              [")
                buffer.decimal(UInt64(index))
                buffer.text("]\n                event type: ")
                buffer.integer(UInt16(report.eventType.rawValue))
                buffer.text("\n                address type: ")
                buffer.integer(UInt16(report.addressType))
                buffer.text("\n                address: ")
                buffer.address(report.address)
                buffer.text("\n                primary PHY: ")
                buffer.string(report.primaryPHY.description)
                buffer.text("\n                secondary PHY: ")
                buffer.string(report.secondaryPHY.description)
                buffer.text("\n                advertising SID: ")
                buffer.integer(UInt16(report.advertisingSID))
                if let txPower = report.txPower {
                    buffer.text("\n                tx power: ")
                    buffer.decimal(Int(txPower))
                }
                if let rssi = report.rssi {
                    buffer.text("\n                rssi: ")
                    buffer.decimal(Int(rssi))
                }
                buffer.text("\n                periodic advertising interval: ")
                buffer.integer(report.periodicAdvertisingInterval)
                buffer.text("\n                direct address type: ")
                buffer.integer(UInt16(report.directAddressType))
                buffer.text("\n                direct address: ")
                buffer.address(report.directAddress)
                buffer.byte(0x0A)
                advertising(report.data, indent: 16, to: &buffer)
            }
        case .connectionComplete(let complete)?:
            buffer.text("        HCI event: connectionComplete\n          status: ")
            buffer.string(complete.status.description)
            buffer.text("\n          handle: ")
            buffer.integer(complete.handle)
            buffer.text("\n          address: ")
            buffer.address(complete.address)
            buffer.text("\n          link type: ")
            buffer.integer(UInt16(complete.linkType))
            buffer.text("\n          encryption enabled: ")
            buffer.integer(UInt16(complete.encryptionEnabled))
            buffer.byte(0x0A)
        case .unknown(let code, let parameters)?:
            buffer.text("        HCI event: unknown\n          code: ")
            buffer.string(code.description)
            buffer.text("\n          parameters: ")
            buffer.bytesField(parameters)
            buffer.byte(0x0A)
        case let parameters?:
            return event(parameters, to: &buffer)
        case nil:
            return false
        }
        return true
    }

    /// Every field of every layer of a record, for `decode -v`.
    public static func detail(_ record: CaptureRecord, _ decoded: DecodedRecord) -> [String] {
        var lines: [String] = []
        switch record.kind {
        case .command:
            if let parameters = try? HCICommandParameters.decode(record.bytes) {
                lines += FieldPrinter.lines(parameters, label: "HCI command")
            }
        case .event:
            if let parameters = try? HCIEventParameters.decode(record.bytes) {
                lines += FieldPrinter.lines(parameters, label: "HCI event")
            }
        default:
            break
        }
        if let l2cap = decoded.l2cap {
            lines.append("        L2CAP: channel \(l2cap.channel), \(l2cap.payload.count) bytes")
            if l2cap.channel == .leSignaling, let pdu = try? LESignalingPDU.decode(l2cap.payload) {
                lines += FieldPrinter.lines(pdu, label: "LE signaling")
            }
        }
        if let pdu = decoded.att { lines += FieldPrinter.lines(pdu, label: "ATT") }
        if let smp = decoded.smp { lines += FieldPrinter.lines(smp.command, label: "SMP") }
        if let fault = decoded.fault ?? decoded.lostFragments { lines.append("        fault: \(fault)") }
        if lines.isEmpty, !record.bytes.isEmpty { lines.append("        bytes: \(record.bytes.hexString)") }
        return lines
    }
}

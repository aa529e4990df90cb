import AndroidCodes
import CoreBluetoothCodes
import Foundation
import Wire

/// What `bletrace explain` says of a code or a pasted log line: every reading of it that names
/// something, the readings considered that name nothing, and how to capture the trace that tells
/// the causes apart.
package struct Explanation: Sendable {
    package var input: String
    /// What the input was taken for: `logcat line`, `decimal number`, ….
    package var understoodAs: String
    package var readings: [Reading]
    /// The other readings considered, each saying why it names nothing.
    package var considered: [String]

    /// How to capture an HCI trace, per platform.
    package static let capture: [(platform: String, steps: String)] = [
        (
            "Android",
            "Developer options > Enable Bluetooth HCI snoop log (Enabled, not Filtered: filtered logs cut ACL payloads short), or adb shell setprop persist.bluetooth.btsnooplogmode full; turn Bluetooth off and on, reproduce, then adb bugreport: the log is FS/data/misc/bluetooth/logs/btsnoop_hci.log in the zip (bletrace reads the zip as it is). Keep adb logcat too: a connect refused before any HCI command shows only there."
        ),
        (
            "iOS",
            "Install Apple's Bluetooth logging profile (developer.apple.com, Profiles and Logs), reproduce, then take a sysdiagnose (both volume buttons and the side button): the trace is logs/Bluetooth/bluetoothd-hci-latest.pklg in it; on a Mac, PacketLogger shows it live."
        ),
    ]
}

/// Reads a code or a log line (``explain(_:)``).
package enum Explainer {
    /// The explanation of `input`, or nil when nothing in it looks like a code (a code that names
    /// nothing gives an explanation with no readings, and its readings considered).
    package static func explain(_ input: String) -> Explanation? {
        let text = input.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = text.lowercased()
        guard !lower.isEmpty else { return nil }
        var kinds: [(Reading.Kind, Int, String)] = []
        var considered: [String] = []
        var understood: String

        if let (domain, code) = domainCode(lower) {
            understood =
                switch domain {
                case "cberrordomain": "CBErrorDomain error"
                case "cbatterrordomain": "CBATTErrorDomain error"
                default: "CBInternalErrorDomain error"
                }
            switch domain {
            case "cberrordomain": kinds = [(.cbError, code, "")]
            case "cbatterrordomain": kinds = [(.cbATTError, code, "")]
            default: kinds = [(.cbInternalError, code, "")]
            }
        } else if let status = number(after: "status", in: lower) {
            let connection = ["onclientconnectionstate", "onconnectionstatechange"].contains { lower.contains($0) }
            let operation = [
                "oncharacteristicread", "oncharacteristicwrite", "ondescriptorread", "ondescriptorwrite",
                "onconfiguremtu", "onmtuchanged",
                "onsearchcomplete", "onservicesdiscovered", "onexecutewrite", "onreliablewritecompleted",
            ].contains { lower.contains($0) }
            understood =
                connection
                ? "logcat line (a connection state change)"
                : operation ? "logcat line (a GATT operation)" : "Android status"
            if connection || !operation { kinds.append((.androidConnection, status, "")) }
            if operation || !connection { kinds.append((.androidOperation, status, "")) }
        } else if let reason = number(after: "reason", in: lower) {
            understood = "disconnection reason"
            if reason >= 700 {
                kinds = [(.bluetoothd, reason, "")]
            } else {
                kinds = numberKinds(reason, digits: String(reason), hexOnly: false)
            }
        } else if let (decimal, hexValue) = errorWithHex(lower) {
            understood = "decimal code with its hexadecimal"
            guard decimal == hexValue else { return nil }
            kinds = numberKinds(decimal, digits: nil, hexOnly: true)
        } else if lower.hasPrefix("0x"), let value = Int(lower.dropFirst(2), radix: 16) {
            understood = "hexadecimal code"
            kinds = numberKinds(value, digits: nil, hexOnly: true)
        } else if lower.allSatisfy(\.isNumber), let value = Int(lower) {
            understood = "decimal number"
            kinds = numberKinds(value, digits: lower, hexOnly: false)
        } else if let named = name(text) {
            understood = "name"
            kinds = named
        } else {
            return nil
        }
        var readings: [Reading] = []
        for (kind, code, how) in kinds {
            if let reading = Reading.make(kind, code) {
                if !readings.contains(reading) { readings.append(reading) }
            } else {
                considered.append("\(kind.title): \(code)\(how) names nothing")
            }
        }
        return Explanation(input: text, understoodAs: understood, readings: readings, considered: considered)
    }

    /// The readings of a bare number: as Android's statuses, as HCI and ATT codes (decimal, and
    /// the same digits read as hexadecimal), as CoreBluetooth's codes.
    private static func numberKinds(_ value: Int, digits: String?, hexOnly: Bool) -> [(Reading.Kind, Int, String)] {
        var kinds: [(Reading.Kind, Int, String)] = [
            (.androidConnection, value, ""), (.androidOperation, value, ""),
            (.hci, value, hexOnly ? "" : " (decimal)"), (.att, value, hexOnly ? "" : " (decimal)"),
        ]
        if let digits, let asHex = Int(digits, radix: 16), asHex != value {
            kinds += [
                (.hci, asHex, " (the digits read as hexadecimal, \(hex(asHex, digits: 2)))"),
                (.att, asHex, " (the digits read as hexadecimal, \(hex(asHex, digits: 2)))"),
            ]
        }
        if !hexOnly { kinds += [(.cbError, value, ""), (.cbATTError, value, "")] }
        return kinds
    }

    /// `CBErrorDomain Code=6`, `Error Domain=CBATTErrorDomain Code=15 "…"`.
    private static func domainCode(_ lower: String) -> (String, Int)? {
        for domain in ["cbatterrordomain", "cbinternalerrordomain", "cberrordomain"] {
            guard let range = lower.range(of: domain) else { continue }
            let rest = lower[range.upperBound...]
            guard let code = firstNumber(in: rest.drop { !$0.isNumber && $0 != "-" }) else { continue }
            return (domain, code)
        }
        return nil
    }

    /// The number after `word` (`status=133`, `status: 133`, `Status 5`, `reason 722`).
    private static func number(after word: String, in lower: String) -> Int? {
        var searchFrom = lower.startIndex
        while let range = lower.range(of: word, range: searchFrom..<lower.endIndex) {
            let rest = lower[range.upperBound...].drop { $0 == " " || $0 == "=" || $0 == ":" }
            if let value = firstNumber(in: rest) { return value }
            searchFrom = range.upperBound
        }
        return nil
    }

    /// `Error 62 (0x3e)`: the decimal and the hexadecimal it gives.
    private static func errorWithHex(_ lower: String) -> (Int, Int)? {
        guard let open = lower.firstIndex(of: "("), lower[open...].hasPrefix("(0x") else { return nil }
        let before = lower[..<open].split(separator: " ").last.map(String.init) ?? ""
        let hexDigits = lower[lower.index(open, offsetBy: 3)...].prefix { $0.isHexDigit }
        guard let decimal = Int(before), let value = Int(hexDigits, radix: 16) else { return nil }
        return (decimal, value)
    }

    private static func firstNumber(in text: Substring) -> Int? {
        if text.hasPrefix("0x") { return Int(text.dropFirst(2).prefix { $0.isHexDigit }, radix: 16) }
        let digits = text.prefix { $0.isNumber }
        return digits.isEmpty ? nil : Int(digits)
    }

    /// A constant's name: Android's (`GATT_ERROR`, `BluetoothGatt.GATT_FAILURE`,
    /// `UNBOND_REASON_AUTH_FAILED`) or CoreBluetooth's (`connectionTimeout`,
    /// `CBError.connectionTimeout`, `CBATTError.insufficientEncryption`).
    private static func name(_ text: String) -> [(Reading.Kind, Int, String)]? {
        var kinds: [(Reading.Kind, Int, String)] = []
        for constant in AndroidCodes.constants(named: text) {
            switch constant.table {
            case .disconnectionReason: kinds.append((.androidConnection, constant.value, ""))
            case .unbondReason: kinds.append((.androidUnbond, constant.value, ""))
            case .bondState: continue
            case .gattStatus, .bluetoothGatt:
                if AndroidCodes.constant(constant.value, forConnectionState: true)?.name == constant.name {
                    kinds.append((.androidConnection, constant.value, ""))
                }
                kinds.append((.androidOperation, constant.value, ""))
            }
        }
        let parts = text.split(separator: ".")
        let bare = String(parts.last ?? "")
        let type = parts.count > 1 ? String(parts[parts.count - 2]).lowercased() : nil
        if type == nil || type == "cberror", let code = CBError.Code.allCases.first(where: { $0.name == bare }) {
            kinds.append((.cbError, code.rawValue, ""))
        }
        if type == nil || type == "cbatterror",
            let code = (1...17).first(where: { CBATTError.Code(rawValue: $0)?.name == bare })
        {
            kinds.append((.cbATTError, code, ""))
        }
        return kinds.isEmpty ? nil : kinds
    }
}

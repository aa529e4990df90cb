import Flow
import Foundation
import TraceFiles
import Wire

/// A failure the capture did not have, injected into a replay at one point of it (`bletrace
/// replay --inject KIND@POINT`, Formats/faults.md), and reported to the app as the replay's iOS
/// model says iOS reports it (Formats/corebluetooth.md). Its text, `link-loss:0x08@12.5` or
/// `att-error:0x05@request:3`, reads back (``init(parsing:)``): it is the reproducer a fault sweep
/// gives for each failure.
public struct Fault: Hashable, Sendable, CustomStringConvertible {
    /// What goes wrong.
    public enum Kind: Hashable, Sendable {
        /// The link drops with this HCI reason (0x08 supervision timeout, 0x13 the peer ended
        /// it, …), the app told as for a disconnection it did not ask for. 0x3E (failed to be
        /// established) fails the next connection attempt to complete instead.
        case linkLoss(UInt8)
        /// The peer refuses the request with this ATT error code. A refusal for security (0x05,
        /// 0x0F, 0x0C) makes iOS pair and send it again; the peer refuses again, and the app gets
        /// the error.
        case attError(UInt8)
        /// The peer never answers the request: the link's later requests wait behind it, and
        /// ATT's 30-second transaction timeout ends the link.
        case timeout
        /// A notification goes wrong (``NotificationFault``).
        case notification(NotificationFault)
        /// The peer's database changes: it indicates Service Changed over every handle, and the
        /// app's discovered services are invalidated (`didModifyServices`).
        case serviceChanged
        /// The peer forgot the bond: the next connection to complete, to a peer the capture shows
        /// encrypted, fails its encryption (HCI 0x06, PIN or Key Missing).
        case bondLost
        /// The peer refuses the request for authentication (0x05) and iOS's pairing for it ends so
        /// (``PairingFault``).
        case pairing(PairingFault)
        /// The Bluetooth daemon resets: `.resetting`, then `.poweredOn`; every peripheral object
        /// is invalid.
        case reset
        /// Bluetooth is turned off in Settings, and on again a second later.
        case power
    }

    /// How a notification goes wrong.
    public enum NotificationFault: String, Hashable, Sendable, CaseIterable {
        /// The first notification delivered from the point on is lost.
        case drop
        /// The first notification delivered from the point on arrives twice.
        case duplicate
        /// The peer notifies as soon as the app asks to subscribe, before the subscription's
        /// answer (a request fault: at an app's `setNotifyValue(true, …)`).
        case early
    }

    /// How the pairing iOS starts for a refusal ends.
    public enum PairingFault: String, Hashable, Sendable, CaseIterable {
        /// The user cancels the pairing alert: iOS ends the link.
        case cancelled
        /// The pairing fails: the request gets the refusal.
        case failed
        /// The pairing never finishes: SMP's 30-second timer runs out.
        case timeout
    }

    /// Where the fault happens.
    public enum Point: Hashable, Sendable {
        /// Seconds after the capture's start (as the flow's times): a fault of the link or the
        /// system happens then; a fault of a request hits the app's first request at or after it.
        case seconds(Double)
        /// The capture's frame (1-based, as Wireshark numbers them): its time, as ``seconds(_:)``.
        case frame(Int)
        /// The app's n-th GATT request of the replay (1-based, discoveries, reads, writes with a
        /// response and subscriptions, in the order the app made them): a fault of a request hits
        /// it; a link loss happens while it is in flight.
        case request(Int)
    }

    public var kind: Kind
    public var point: Point

    public init(_ kind: Kind, at point: Point) {
        self.kind = kind
        self.point = point
    }

    /// Whether the fault hits a request of the app (the others happen at a moment).
    public var hitsRequest: Bool {
        switch kind {
        case .attError, .timeout, .pairing, .notification(.early): true
        default: false
        }
    }

    // MARK: Text

    /// `KIND[:PARAMETER]`, as `--inject` and `--sweep` name it.
    public var kindText: String {
        switch kind {
        case .linkLoss(let reason): "link-loss:" + Self.hexByte(reason)
        case .attError(let code): "att-error:" + Self.hexByte(code)
        case .timeout: "timeout"
        case .notification(let how): "notifications:\(how.rawValue)"
        case .serviceChanged: "service-changed"
        case .bondLost: "bond-lost"
        case .pairing(let how): "pairing:\(how.rawValue)"
        case .reset: "reset"
        case .power: "power"
        }
    }

    /// `@12.5`, `@frame:57` or `@request:3`.
    public var pointText: String {
        switch point {
        case .seconds(let seconds): Self.secondsText(seconds)
        case .frame(let frame): "frame:\(frame)"
        case .request(let number): "request:\(number)"
        }
    }

    /// `KIND[:PARAMETER]@POINT`: the argument of `--inject` that replays this fault alone.
    public var description: String { kindText + "@" + pointText }

    /// Reads `KIND[:PARAMETER]@POINT` (``description``): `link-loss` (0x08 unless a reason is
    /// given), `att-error:CODE`, `timeout`, `notifications:drop|duplicate|early`,
    /// `service-changed`, `bond-lost`, `pairing:cancelled|failed|timeout`, `reset`, `power`; the
    /// point seconds after the capture's start, `frame:N` or `request:N`.
    public init(parsing text: String) throws(FaultError) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw FaultError(
                "'\(text)' is not KIND@POINT (for example link-loss:0x08@12.5 or att-error:0x05@request:3)")
        }
        kind = try Self.kind(parsing: String(parts[0]))
        point = try Self.point(parsing: String(parts[1]))
    }

    /// The kinds `--inject` takes, as their help names them.
    public static let kindNames = [
        "link-loss[:REASON]", "att-error:CODE", "timeout", "notifications:drop|duplicate|early", "service-changed",
        "bond-lost",
        "pairing:cancelled|failed|timeout", "reset", "power",
    ]

    static func kind(parsing text: String) throws(FaultError) -> Kind {
        let pieces = text.split(separator: ":", maxSplits: 1).map(String.init)
        let name = pieces[0]
        let parameter = pieces.count > 1 ? pieces[1] : nil
        func noParameter(_ kind: Kind) throws(FaultError) -> Kind {
            guard parameter == nil else { throw FaultError("\(name) takes no parameter (got '\(parameter!)')") }
            return kind
        }
        switch name {
        case "link-loss":
            guard let parameter else { return .linkLoss(0x08) }
            guard let reason = byte(parameter), reason != 0 else {
                throw FaultError(
                    "link-loss takes an HCI reason from 0x01 to 0xFF (0x08 supervision timeout, 0x13 the peer ended it, 0x3E failed to be established), not '\(parameter)'"
                )
            }
            return .linkLoss(reason)
        case "att-error":
            guard let parameter, let code = byte(parameter), code != 0 else {
                throw FaultError(
                    "att-error takes an ATT error code from 0x01 to 0xFF (for example att-error:0x05), not '\(parameter ?? "")'"
                )
            }
            return .attError(code)
        case "notifications", "notification":
            guard let how = NotificationFault(rawValue: parameter ?? "drop") else {
                throw FaultError("notifications takes drop, duplicate or early, not '\(parameter ?? "")'")
            }
            return .notification(how)
        case "pairing":
            guard let how = PairingFault(rawValue: parameter ?? "failed") else {
                throw FaultError("pairing takes cancelled, failed or timeout, not '\(parameter ?? "")'")
            }
            return .pairing(how)
        case "timeout": return try noParameter(.timeout)
        case "service-changed": return try noParameter(.serviceChanged)
        case "bond-lost": return try noParameter(.bondLost)
        case "reset": return try noParameter(.reset)
        case "power": return try noParameter(.power)
        default:
            throw FaultError("no fault named '\(name)'; the kinds are: \(kindNames.joined(separator: ", "))")
        }
    }

    static func point(parsing text: String) throws(FaultError) -> Point {
        if text.hasPrefix("frame:") || text.hasPrefix("request:") {
            let isFrame = text.hasPrefix("frame:")
            guard let number = Int(text.drop(while: { $0 != ":" }).dropFirst()), number >= 1 else {
                throw FaultError("\(isFrame ? "frame" : "request"): takes a number from 1, not '\(text)'")
            }
            return isFrame ? .frame(number) : .request(number)
        }
        let number = text.hasPrefix("+") ? String(text.dropFirst()) : text
        guard let seconds = Double(number), seconds.isFinite, seconds >= 0 else {
            throw FaultError(
                "a fault's point is seconds after the capture's start (0 or more), frame:N or request:N, not '\(text)'")
        }
        return .seconds(seconds)
    }

    /// A byte in hexadecimal with a `0x` prefix (`0x3E`) or in decimal (`62`).
    static func byte(_ text: String) -> UInt8? {
        let lower = text.lowercased()
        if lower.hasPrefix("0x") { return UInt8(lower.dropFirst(2), radix: 16) }
        return UInt8(lower)
    }

    static func hexByte(_ value: UInt8) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" : "") + digits
    }

    /// Seconds to the microsecond, with no trailing zeros, as a fault's point is written (`12.5`,
    /// `3`): the syntax ``parse(_:)`` reads, not a report's time (``Wording/sinceStart(seconds:)``).
    static func secondsText(_ seconds: Double) -> String {
        var text = Wording.sixDecimals(seconds)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

extension Fault {
    /// `faults` with each `frame:N` point placed at its frame's time in the capture at `path`
    /// (seconds after `origin`, the capture's first record), read once up to the last frame
    /// named. A frame the capture does not have is an error that says how many it has.
    public static func resolvingFrames(_ faults: [Fault], path: String, origin: Timestamp) throws -> [Fault] {
        let frames = Set(faults.compactMap { if case .frame(let n) = $0.point { n } else { nil } })
        guard let last = frames.max() else { return faults }
        var times: [Int: Double] = [:]
        let reader = try CaptureReader(path: path, linkLayer: true)
        var count = 0
        while count < last, let record = try reader.next() {
            count += 1
            if frames.contains(count) { times[count] = record.timestamp.seconds(since: origin) }
        }
        return try faults.map { fault in
            guard case .frame(let frame) = fault.point else { return fault }
            guard let seconds = times[frame] else {
                throw FaultError("\(fault): the capture has \(count) frames, not \(frame)")
            }
            return Fault(fault.kind, at: .seconds(max(0, seconds)))
        }
    }
}

/// A fault that cannot be read or placed: what was expected.
public struct FaultError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

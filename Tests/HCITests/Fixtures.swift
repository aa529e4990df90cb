import HCI
import TestSupport
import Testing
import Wire

/// A hand-written HCI packet, one spec field a string, and what it must decode to.
///
/// `header` is the event code and parameter length (events) or the opcode and parameter length
/// (commands), as written by hand; `parameters` are the parameter fields in order. The first
/// `mandatory` parameter fields must all be present for the packet to decode.
struct PacketCase<Summary: Equatable & Sendable>: Sendable, CustomTestStringConvertible {
    var name: String
    var header: [String]
    var parameters: [String]
    var mandatory: Int
    var expected: Summary

    var testDescription: String { name }

    var headerBytes: [UInt8] { packet(header) }
    var parameterBytes: [UInt8] { packet(parameters) }
    var bytes: [UInt8] { headerBytes + parameterBytes }
    var fieldSizes: [Int] { parameters.map { packet($0).count } }
    /// Bytes in the mandatory fields.
    var mandatoryLength: Int { fieldSizes.prefix(mandatory).reduce(0, +) }

    /// Offset (within the parameters) of the first mandatory field not wholly within `length`.
    func firstMissingField(within length: Int) -> Int? {
        var start = 0
        for size in fieldSizes.prefix(mandatory) {
            if start + size > length { return start }
            start += size
        }
        return nil
    }
}

// MARK: - Events, summarized into plain values for comparison

struct LEConnectionSummary: Equatable, Sendable {
    var subevent: UInt8
    var status: HCIStatus
    var handle: UInt16
    var role: UInt8
    var peerAddressType: UInt8
    var peerAddress: BluetoothAddress
    var localResolvablePrivateAddress: BluetoothAddress? = nil
    var peerResolvablePrivateAddress: BluetoothAddress? = nil
    var connectionInterval: UInt16
    var peripheralLatency: UInt16
    var supervisionTimeout: UInt16
    var advertisingHandle: UInt8? = nil
    var syncHandle: UInt16? = nil
}

enum EventSummary: Equatable, Sendable {
    case connectionComplete(status: HCIStatus, handle: UInt16, address: BluetoothAddress, linkType: UInt8)
    case disconnectionComplete(status: HCIStatus, handle: UInt16, reason: HCIStatus)
    case commandComplete(numPackets: UInt8, opcode: HCIOpcode, returnParameters: [UInt8])
    case commandStatus(status: HCIStatus, numPackets: UInt8, opcode: HCIOpcode)
    case leConnectionComplete(LEConnectionSummary)
    case leUnknown(subevent: UInt8, parameters: [UInt8])
    case unknown(code: UInt8, parameters: [UInt8])

    init(_ event: HCIEvent) {
        switch event {
        case .connectionComplete(let status, let handle, let address, let linkType):
            self = .connectionComplete(status: status, handle: handle, address: address, linkType: linkType)
        case .disconnectionComplete(let status, let handle, let reason):
            self = .disconnectionComplete(status: status, handle: handle, reason: reason)
        case .commandComplete(let numPackets, let opcode, let returnParameters):
            self = .commandComplete(
                numPackets: numPackets, opcode: opcode, returnParameters: Array(returnParameters))
        case .commandStatus(let status, let numPackets, let opcode):
            self = .commandStatus(status: status, numPackets: numPackets, opcode: opcode)
        case .le(.connectionComplete(let c)):
            self = .leConnectionComplete(
                LEConnectionSummary(
                    subevent: c.subevent.rawValue, status: c.status, handle: c.handle, role: c.role,
                    peerAddressType: c.peerAddressType, peerAddress: c.peerAddress,
                    localResolvablePrivateAddress: c.localResolvablePrivateAddress,
                    peerResolvablePrivateAddress: c.peerResolvablePrivateAddress,
                    connectionInterval: c.connectionInterval, peripheralLatency: c.peripheralLatency,
                    supervisionTimeout: c.supervisionTimeout, advertisingHandle: c.advertisingHandle,
                    syncHandle: c.syncHandle))
        case .le(.unknown(let subevent, let parameters)):
            self = .leUnknown(subevent: subevent.rawValue, parameters: Array(parameters))
        case .unknown(let code, let parameters):
            self = .unknown(code: code.rawValue, parameters: Array(parameters))
        }
    }
}

func decodeEvent(_ bytes: [UInt8]) throws -> EventSummary {
    try bytes.withUnsafeBytes { raw throws in EventSummary(try HCIEvent.decode(raw)) }
}

/// An address written most significant byte first, as people print it.
func address(_ text: String) -> BluetoothAddress {
    guard let address = BluetoothAddress(text) else { preconditionFailure("bad address \(text)") }
    return address
}

// MARK: - Commands

struct CreateConnectionSummary: Equatable, Sendable {
    var initiatorFilterPolicy: UInt8
    var ownAddressType: UInt8
    var peerAddressType: UInt8
    var peerAddress: BluetoothAddress
    var connectionIntervalMin: UInt16
    var connectionIntervalMax: UInt16
    var maxLatency: UInt16
    var supervisionTimeout: UInt16
    var usesFilterAcceptList: Bool

    init(_ c: LECreateConnection) {
        self.init(
            initiatorFilterPolicy: c.initiatorFilterPolicy, ownAddressType: c.ownAddressType,
            peerAddressType: c.peerAddressType, peerAddress: c.peerAddress,
            connectionIntervalMin: c.connectionIntervalMin, connectionIntervalMax: c.connectionIntervalMax,
            maxLatency: c.maxLatency, supervisionTimeout: c.supervisionTimeout,
            usesFilterAcceptList: c.usesFilterAcceptList)
    }

    init(
        initiatorFilterPolicy: UInt8, ownAddressType: UInt8, peerAddressType: UInt8,
        peerAddress: BluetoothAddress, connectionIntervalMin: UInt16, connectionIntervalMax: UInt16,
        maxLatency: UInt16, supervisionTimeout: UInt16, usesFilterAcceptList: Bool
    ) {
        self.initiatorFilterPolicy = initiatorFilterPolicy
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.connectionIntervalMin = connectionIntervalMin
        self.connectionIntervalMax = connectionIntervalMax
        self.maxLatency = maxLatency
        self.supervisionTimeout = supervisionTimeout
        self.usesFilterAcceptList = usesFilterAcceptList
    }
}

enum CommandSummary: Equatable, Sendable {
    case disconnect(handle: UInt16, reason: HCIStatus)
    case leCreateConnection(CreateConnectionSummary)
    case leExtendedCreateConnection(CreateConnectionSummary)
    case leCreateConnectionCancel
    case unknown(opcode: HCIOpcode, parameters: [UInt8])

    init(_ command: HCICommand) {
        switch command {
        case .disconnect(let handle, let reason): self = .disconnect(handle: handle, reason: reason)
        case .leCreateConnection(let c): self = .leCreateConnection(CreateConnectionSummary(c))
        case .leExtendedCreateConnection(let c):
            self = .leExtendedCreateConnection(CreateConnectionSummary(c))
        case .leCreateConnectionCancel: self = .leCreateConnectionCancel
        case .unknown(let opcode, let parameters):
            self = .unknown(opcode: opcode, parameters: Array(parameters))
        }
    }
}

func decodeCommand(_ bytes: [UInt8]) throws -> CommandSummary {
    try bytes.withUnsafeBytes { raw throws in CommandSummary(try HCICommand.decode(raw)) }
}

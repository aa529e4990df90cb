import Wire

/// The end of an ATT bearer that sent a PDU, as ``ATTTransactions`` tells them apart: all pairing
/// needs is that an answer comes from the other end than the PDU it answers.
public enum ATTEnd: UInt8, Hashable, Sendable {
    /// One end: this host in a capture of the host/controller interface, the central on the air.
    case one
    /// The other end: the peer in a capture of the host/controller interface, the peripheral on
    /// the air.
    case other
    /// A capture that records no direction (pcap link type 187) puts every PDU here: an answer
    /// then pairs with the last request (or indication), whichever end sent it.
    case unknown

    /// The end a PDU that went `direction` across the host/controller interface came from:
    /// this host's when sent, the peer's when received.
    @inlinable
    public init(_ direction: Direction?) {
        switch direction {
        case .sent: self = .one
        case .received: self = .other
        case nil: self = .unknown
        }
    }

    /// The end an answer to a PDU from this end comes from.
    @inlinable
    public var answering: ATTEnd {
        switch self {
        case .one: .other
        case .other: .one
        case .unknown: .unknown
        }
    }
}

/// ATT's transactions on one bearer: which request and which indication each end has
/// outstanding, so that an answer is read with what it answers. The one place bletrace pairs
/// ATT answers with what they answer: the analysis (`ATTTracker`), the air captures'
/// decoder (`LinkLayerDecoder`) and the cassette (`CassetteRecorder`) each keep one per
/// connection.
///
/// The rule, Core 6.0, Vol 3, Part F, §3.3.2 (and §3.3.3, a transaction is a request and its
/// response, or an indication and its confirmation):
/// - A client has at most one request outstanding on a bearer: it sends no other until the
///   response (or an Error Response, §3.4.1.1) comes. Its server has, separately, at most one
///   indication outstanding until its confirmation (§3.4.7.3) comes. Each end of a link may be
///   both a client and a server, so one bearer has up to four transactions open, one of each
///   kind per end; a request sent while the same end's indication awaits its confirmation opens
///   a transaction of its own.
/// - A response or an Error Response answers the request the other end has outstanding; a
///   confirmation answers the indication the other end has outstanding. Neither answers the
///   other kind.
/// - A capture may miss an answer, or a peer break the rule: a new request (or indication)
///   replaces the outstanding one of its kind from the same end, which is then never answered.
///
/// `Request` is what the user keeps of a request until its answer (the tracker's `ATTRequest`,
/// the opcode, handle and record on the air, where the cassette put it). Six optionals stored
/// inline (the two ends and ``ATTEnd/unknown``, for requests and for indications): noting a PDU
/// allocates nothing.
public struct ATTTransactions<Request> {
    /// The outstanding requests of ``ATTEnd/one``, ``ATTEnd/other``, ``ATTEnd/unknown``.
    @usableFromInline var requests: (Request?, Request?, Request?) = (nil, nil, nil)
    /// The outstanding indications, in the same order.
    @usableFromInline var indications: (Request?, Request?, Request?) = (nil, nil, nil)

    @inlinable public init() {}

    /// Notes that `end` sent a PDU of `method` that opens a transaction (a request or an
    /// indication), kept as `request` until its answer; returns the outstanding one of the same
    /// kind from the same end that it replaces. Any other method opens nothing (nil).
    @inlinable
    @discardableResult
    public mutating func begin(_ request: Request, _ method: ATTOpcode.Method, from end: ATTEnd) -> Request? {
        switch method {
        case .request: Self.swap(request, at: end, in: &requests)
        case .indication: Self.swap(request, at: end, in: &indications)
        default: nil
        }
    }

    /// Notes that `end` sent a PDU of `method` and, if it is an answer (a response or an Error
    /// Response, or a confirmation), returns what it answers: the other end's outstanding
    /// request (or indication), which is then closed. Nil when nothing of that kind is
    /// outstanding, and for any other method.
    @inlinable
    public mutating func answer(_ method: ATTOpcode.Method, from end: ATTEnd) -> Request? {
        switch method {
        case .response: Self.swap(nil, at: end.answering, in: &requests)
        case .confirmation: Self.swap(nil, at: end.answering, in: &indications)
        default: nil
        }
    }

    /// The requests, then the indications, still waiting for their answers (each in the order
    /// ``ATTEnd/one``, ``ATTEnd/other``, ``ATTEnd/unknown``). Allocates only when there are some.
    @inlinable
    public var outstanding: [Request] {
        var list: [Request] = []
        if let request = requests.0 { list.append(request) }
        if let request = requests.1 { list.append(request) }
        if let request = requests.2 { list.append(request) }
        if let indication = indications.0 { list.append(indication) }
        if let indication = indications.1 { list.append(indication) }
        if let indication = indications.2 { list.append(indication) }
        return list
    }

    /// Stores `new` for `end` in `slots`; returns what was there.
    @inlinable @inline(__always)
    static func swap(
        _ new: Request?, at end: ATTEnd, in slots: inout (Request?, Request?, Request?)
    ) -> Request? {
        var value = new
        switch end {
        case .one: Swift.swap(&value, &slots.0)
        case .other: Swift.swap(&value, &slots.1)
        case .unknown: Swift.swap(&value, &slots.2)
        }
        return value
    }
}

extension ATTTransactions: Sendable where Request: Sendable {}

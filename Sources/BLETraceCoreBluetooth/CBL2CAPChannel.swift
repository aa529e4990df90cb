import Foundation

/// An L2CAP connection-oriented channel (`CBL2CAPChannel`): a PSM and a pair of streams, made by
/// the system that opened or accepted it.
open class CBL2CAPChannel: NSObject {
    public let peer: CBPeer
    public let psm: CBL2CAPPSM
    public let inputStream: InputStream
    public let outputStream: OutputStream

    public init(peer: CBPeer, psm: CBL2CAPPSM, inputStream: InputStream, outputStream: OutputStream) {
        self.peer = peer
        self.psm = psm
        self.inputStream = inputStream
        self.outputStream = outputStream
        super.init()
    }
}

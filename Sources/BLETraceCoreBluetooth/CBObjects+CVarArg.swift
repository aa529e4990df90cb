// `String(format: "%@", peripheral)`, `NSLog` and `os_log`-style calls take CoreBluetooth objects
// on Apple's systems, where every `NSObject` is `CVarArg`. Corelibs Foundation makes `NSObject`
// `CVarArg` only from Swift 6.4 (swift-corelibs-foundation 5490/5492, which also teach `%@` to
// ask an object for its `description`); before, it is not, and `%@` with a plain object pointer
// crashes. So each CoreBluetooth class is `CVarArg` here: `%@` gets the object's `description`
// as a string that the formatting call keeps alive (`_CVarArgObject`), which is what Apple's `%@`
// prints. `NSNumber`, which CoreBluetooth hands apps for the RSSI, is made `CVarArg` the same way.
// From Swift 6.4 on, `NSObject` is `CVarArg` itself and these conformances would repeat it.
#if !canImport(ObjectiveC) && compiler(<6.4)
import Foundation

/// `CVarArg` through the object's `description`, for `%@`.
public protocol _CVarArgByDescription: _CVarArgObject {
    var description: String { get }
}

extension _CVarArgByDescription {
    public var _cVarArgObject: any CVarArg { description as NSString }
    public var _cVarArgEncoding: [Int] { (description as NSString)._cVarArgEncoding }
}

extension CBManager: _CVarArgByDescription {}
extension CBPeer: _CVarArgByDescription {}
extension CBAttribute: _CVarArgByDescription {}
extension CBUUID: _CVarArgByDescription {}
extension CBATTRequest: _CVarArgByDescription {}
extension CBL2CAPChannel: _CVarArgByDescription {}
// The RSSI the delegate gets (`String(format: "%@ dBm", RSSI)`) and the descriptors' values.
extension NSNumber: _CVarArgByDescription, @retroactive _CVarArgObject, @retroactive CVarArg {}
#endif

// What `import CoreBluetooth` brings with it on Apple's systems: its headers import Foundation,
// which brings Dispatch, so a file that imports only CoreBluetooth knows `Data`, `UUID`,
// `NSNumber`, `NSObject`, `Timer` and `DispatchQueue`. `import BLETraceCoreBluetooth` brings the
// same, so that the import line is the only change an app's Bluetooth code needs.
@_exported import Dispatch
@_exported import Foundation

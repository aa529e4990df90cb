// `import BLETrace` gives a user's own tests every public module of bletrace.
@_exported import ATT
@_exported import CoreBluetoothCodes
@_exported import Flow
@_exported import HCI
@_exported import Lifecycle
@_exported import LinkLayer
@_exported import BLETraceCoreBluetooth
@_exported import Replay
@_exported import Reports
@_exported import TraceFiles
@_exported import Wire

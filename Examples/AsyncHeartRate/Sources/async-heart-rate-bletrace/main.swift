// The team's own bletrace: every subcommand, and `replay --app AsyncHeartRate` runs the app's
// async Bluetooth layer against a field capture.
import AsyncHeartRateReplay
import BletraceCLI

await BletraceCommand.main(apps: [AsyncHeartRateApp.self])

// The `bletrace` command: everything is in the BletraceCLI library, so that a team's own
// executable can be the same tool with its apps added (`BletraceCommand.main(apps:)`).
import BletraceCLI

await BletraceCommand.main()

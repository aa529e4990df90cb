import Lifecycle
import Wire

// The words of a capture's fitness (`info` and `diagnose` say them first): each problem's
// sentence and how to record a capture that can answer, per platform, written from the facts
// `CaptureFitness` found (`FitnessProblem.Facts`, in Lifecycle). The one place they are written;
// counts through `Wording`.

extension FitnessProblem {
    // Each of `problem` and `remedy` writes both sentences (``words``): a report that shows both
    // takes `words` once (FitnessList, JSONFitnessProblem).

    /// One plain sentence: what the capture lacks, and what it therefore cannot say.
    package var problem: String { words.problem }
    /// How to record a capture that can answer, per platform.
    package var remedy: String { words.remedy }

    /// The two sentences at once.
    package var words: (problem: String, remedy: String) {
        switch facts {
        case .aclCutShort(let packets, let first, let kept, let whole):
            return (
                Wording.count(packets, "ACL packet") + (packets == 1 ? " was" : " were")
                    + " cut short by the capture (frame \(first + 1) keeps \(kept) of \(whole) bytes): the values, the GATT database and the ATT errors in them cannot be read. Android's filtered snoop log keeps the first bytes of each packet, and a bug report's btsnooz summary (with the snoop log off) keeps only the last packets, cut the same way.",
                FitnessRemedy.androidFull + " A btsnooz summary is never whole: turn the snoop log on."
            )
        case .startedMidConnection(let connections, let first):
            let listed = first.map { "handle \(hex($0.handle, digits: 4)) from frame \($0.record + 1)" }
                .joined(separator: ", ")
            return (
                "The capture began in the middle of \(Wording.count(connections, "connection")) (\(listed)\(connections > first.count ? ", …" : "")): their peers, how and when they connected, the MTU and the GATT discovery are not in it, so the handles' attributes and why the links were made cannot be told.",
                "Start recording before the app connects. " + FitnessRemedy.androidFull + " " + FitnessRemedy.iOS
                    + " A log cut by rotation: take the bug report's btsnoop_hci.log.last too (the log before it)."
            )
        case .lostItsStart(let first, let resetSeen, let rotatedFile):
            return (
                "The capture begins in the middle of the stack's traffic: frame \(first + 1) answers a command (or continues a packet) that the capture does not hold"
                    + (resetSeen ? "" : ", and no HCI Reset starts it")
                    + (rotatedFile
                        ? "; it holds exactly 65,535 records, the size at which Android's snoop logger starts a new file, so it is one of a rotated pair."
                        : ": it was cut from a longer log (Android's snoop log rotates every 65,535 records, keeping one file before) or started while Bluetooth was on."),
                "Android: take both btsnoop_hci.log and btsnoop_hci.log.last from the bug report (FS/data/misc/bluetooth/logs/) and read the older first, or raise the packets a file holds (adb shell setprop persist.bluetooth.btsnoopsize with a number above 65535) and turn Bluetooth off and on before reproducing, so that the log starts with the stack. "
                    + FitnessRemedy.iOS
            )
        case .oneSideOnly(let recorded, let count):
            let what =
                switch recorded {
                case .commands: "\(count) commands and no event: the controller's side was not recorded"
                case .events: "\(count) events and no command: the host's side was not recorded"
                case .aclSent: "\(count) ACL packets sent and none received: the peer's answers were not recorded"
                case .aclReceived:
                    "\(count) ACL packets received and none sent: this host's requests were not recorded"
                }
            return (
                "The capture holds one side only (\(what)), so no request can be matched with its answer.",
                "Record the host's own HCI log, which holds both directions: " + FitnessRemedy.androidFull + " "
                    + FitnessRemedy.iOS
            )
        case .linksJoined(let links, let first, let from):
            return (
                "The sniffer joined \(Wording.count(links, "link")) after \(links == 1 ? "it" : "they") began (no CONNECT_IND; link \(first) from frame \((from ?? 0) + 1)): the connection's start, its parameters and any key exchange are not in the capture.",
                FitnessRemedy.sniffer
            )
        case .encryptedWithoutKey(let packets, let links, let first, let from):
            return (
                "\(Wording.count(packets, "encrypted packet")) on \(Wording.count(links, "link")) could not be read (link \(first)\(from.map { ", from frame \($0 + 1)" } ?? "")): without the link's key, nothing after the encryption started (ATT, SMP, the link's end) can be told.",
                "Give the long-term key: bletrace diagnose --ltk HEX (the Encryption Information of the pairing, or the key from the phone's bond). nRF Sniffer: enter the LE Secure Connections private key, the legacy passkey or OOB key, or the LTK in Wireshark's nRF Sniffer toolbar before the devices pair or connect, and capture the pairing itself; a bond made before the capture can be read only with its LTK."
            )
        case .oneSideHeard(let links, let first, let central, let peripheral):
            return (
                "The sniffer heard one side only on \(Wording.count(links, "link")) (link \(first): \(central) packets from the central, \(peripheral) from the peripheral), so no request can be matched with its answer.",
                "Place the sniffer between the two devices, close to both, and follow the link from its CONNECT_IND. "
                    + FitnessRemedy.sniffer
            )
        }
    }
}

/// The steps of recording a whole capture, shared by the remedies.
private enum FitnessRemedy {
    /// Android's full snoop log, step by step.
    static let androidFull =
        "Android: Developer options > Enable Bluetooth HCI snoop log > Enabled (not Filtered), or adb shell setprop persist.bluetooth.btsnooplogmode full (the default mode is the global setting bluetooth_btsnoop_default_mode: adb shell settings put global bluetooth_btsnoop_default_mode full); turn Bluetooth off and on, reproduce, then adb bugreport: the log is FS/data/misc/bluetooth/logs/btsnoop_hci.log in the zip."
    /// iOS's Bluetooth logging, step by step.
    static let iOS =
        "iOS: install Apple's Bluetooth logging profile (developer.apple.com, Profiles and Logs), reproduce, then take a sysdiagnose: the log is logs/Bluetooth/bluetoothd-hci-latest.pklg in it (PacketLogger on a Mac shows it live)."
    /// The nRF Sniffer, step by step.
    static let sniffer =
        "nRF Sniffer: start capturing before the devices connect, choose the peripheral in the Device list so the sniffer follows it from its CONNECT_IND, and give the pairing's key (passkey, OOB or LTK) for an encrypted link."
}

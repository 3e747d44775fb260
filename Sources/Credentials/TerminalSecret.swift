import FoundationEssentials
import Glibc

/// A secret (PIN, passphrase) typed on the controlling terminal without echo; never from stdin,
/// which scripts use for other things.
public enum TerminalSecret {
    /// The line typed after `prompt`, or nil when there is no terminal to ask on.
    public static func read(prompt: String) -> String? {
        let tty = open("/dev/tty", O_RDWR)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        var saved = termios()
        tcgetattr(tty, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(tty, TCSAFLUSH, &silent)
        defer { tcsetattr(tty, TCSAFLUSH, &saved); _ = write(tty, "\n", 1) }
        _ = write(tty, prompt, prompt.utf8.count)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(tty, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }
}

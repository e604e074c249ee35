#if canImport(Glibc)
import Glibc
#endif

/// The terminal `plumb watch` draws on: keys read without waiting and without echo, the
/// alternate screen, the cursor hidden, and everything put back by ``restore()``.
///
/// Only canonical mode and echo are turned off (cbreak): signals stay on, so Ctrl-C arrives as
/// SIGINT and takes the same road out as SIGTERM and SIGHUP (``InterruptFlag``), and output
/// processing stays on, so a newline still returns the carriage.
final class WatchTerminal {
    private var saved = termios()
    private var restored = false
    private let console: Console

    /// Whether `plumb watch` has a person at a terminal: standard input and output both one.
    static var isInteractive: Bool { isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0 }

    /// Puts the terminal in cbreak mode with non-blocking reads and switches to the alternate
    /// screen.
    ///
    /// - Throws: ``CommandFailure`` when the terminal's settings can't be read or set.
    init(console: Console) throws(CommandFailure) {
        self.console = console
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw CommandFailure("cannot read the terminal's settings (\(String(cString: strerror(errno))));"
                + " run plumb watch with its output redirected for one line per reading.")
        }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        // VMIN 0, VTIME 0: a read returns at once, with whatever keys were pressed or nothing.
        withUnsafeMutableBytes(of: &raw.c_cc) { cells in
            cells[Int(VMIN)] = 0
            cells[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else {
            throw CommandFailure("cannot set the terminal's mode (\(String(cString: strerror(errno))));"
                + " run plumb watch with its output redirected for one line per reading.")
        }
        // The alternate screen keeps the shell's screen to come back to; the cursor is hidden so
        // it does not flicker across each redraw.
        console.printWithoutNewline("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    deinit { restore() }

    /// Back to the shell's screen and the settings found at start; safe to call more than once.
    func restore() {
        guard !restored else { return }
        restored = true
        console.printWithoutNewline("\u{1B}[?25h\u{1B}[?1049l")
        // TCSADRAIN: the screen switch above is written out before the mode changes back.
        _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &saved)
    }

    /// The keys pressed since the last call; empty when none.
    func keys() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
        return count > 0 ? Array(buffer[..<count]) : []
    }

    /// Rows and columns; 24 × 80 when the terminal does not say (a pseudo-terminal nobody sized).
    func size() -> (rows: Int, columns: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else {
            return (24, 80)
        }
        return (Int(size.ws_row), Int(size.ws_col))
    }

    /// Draws `lines` over the previous screen in one write: from the top left, each line cut to
    /// the width and cleared to its end, then the rest of the screen cleared. Overwriting instead
    /// of clearing first is what keeps it from flickering.
    func draw(_ lines: [String]) {
        let (rows, columns) = size()
        let shown = lines.prefix(rows).map { Self.cut($0, to: columns) + "\u{1B}[K" }
        console.printWithoutNewline("\u{1B}[H" + shown.joined(separator: "\n") + "\u{1B}[J")
    }

    /// `line` cut to `columns` visible characters; ANSI escape sequences (colours) take no room
    /// and are kept.
    static func cut(_ line: String, to columns: Int) -> String {
        var result = ""
        var visible = 0
        var inEscape = false
        for character in line {
            if character == "\u{1B}" {
                inEscape = true
            } else if inEscape {
                if character.isLetter { inEscape = false }
            } else {
                guard visible < columns else { continue }
                visible += 1
            }
            result.append(character)
        }
        return result
    }
}

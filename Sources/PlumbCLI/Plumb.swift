import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The `plumb` command: dispatches to a subcommand and turns every failure into a message and an
/// exit status (0 success, 1 a failure while working, 2 a usage mistake). Nothing here crashes on
/// input.
public enum Plumb {
    /// Plumb's version, printed by `plumb --version` and later published in `health`.
    public static let version = "0.1.0"

    struct Command: Sendable {
        let name: String
        let summary: String
        let usage: String
        let run: @Sendable ([String], Console) throws -> Int32
    }

    static let commands: [Command] = [
        Command(name: "probe", summary: "Find the ADXL345 and show how the bus reaches it.",
                usage: ProbeCommand.usage, run: ProbeCommand.run),
        Command(name: "read", summary: "Print roll, pitch and tilt readings.",
                usage: ReadCommand.usage, run: ReadCommand.run),
        Command(name: "run", summary: "Run the MQTT agent (under systemd on a Pi).",
                usage: RunCommand.usage, run: RunCommand.run),
        Command(name: "selftest", summary: "Run the chip's self-test against the datasheet limits.",
                usage: SelfTestCommand.usage, run: SelfTestCommand.run),
    ]

    static var overview: String {
        let width = commands.map(\.name.count).max() ?? 0
        let list = commands.map { "  " + $0.name.padded(to: width + 2) + $0.summary }
        return """
            plumb \(version): a networked digital level on an ADXL345 accelerometer.

            Usage: plumb <command> [options]
                   plumb --version

            Commands:
            \(list.joined(separator: "\n"))

            Run 'plumb <command> --help' for a command's options.
            """
    }

    /// Runs `arguments` (without the program name) and returns the exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        let console = Console()
        guard let first = arguments.first else {
            console.error(overview)
            return 2
        }
        switch first {
        case "--version", "version":
            console.print("plumb \(version)")
            return 0
        case "--help", "-h", "help":
            console.print(overview)
            return 0
        default:
            break
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            console.error("plumb: error: unknown command '\(first)'.\n\n\(overview)")
            return 2
        }
        do {
            return try command.run(Array(arguments.dropFirst()), console)
        } catch let error as UsageError {
            console.error("plumb \(command.name): error: \(error.message)\nUsage: \(command.usage)\nSee 'plumb \(command.name) --help'.")
            return 2
        } catch let error as CommandFailure {
            console.error("plumb \(command.name): error: \(error.message)")
            return error.exitCode
        } catch {
            console.error("plumb \(command.name): error: \(error)")
            return 1
        }
    }
}

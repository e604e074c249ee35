import Accelerometers
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

    /// Every subcommand, in the order `plumb --help` lists them.
    static let commands: [any Subcommand.Type] = [
        BubbleCommand.self, CalibrateCommand.self, ConvertCommand.self, DashboardCommand.self, FleetCommand.self, ForgetCommand.self,
        ProbeCommand.self, ReadCommand.self, RiseCommand.self, RulerCommand.self, RunCommand.self, SelfTestCommand.self,
        ShimCommand.self, VibrationCommand.self, WatchCommand.self,
    ]

    static var overview: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map { "  " + $0.name.padded(to: width + 2) + $0.summary }
        return """
            plumb \(version): a networked digital level on an I²C accelerometer (\(ChipCatalog.all.map(\.model).joined(separator: ", "))).

            Usage: plumb <command> [options]
                   plumb --version

            Commands:
            \(list.joined(separator: "\n"))

            Run 'plumb <command> --help' for a command's options.
            """
    }

    /// The command named in `arguments` and the arguments it gets; nil when none is named.
    ///
    /// The name usually comes first. A command's own options may also come before it
    /// (`plumb --sensor sim rise 1m`): the first word that names a command, with everything before
    /// it complete options of that command and no positional, is the command, and those options
    /// are handed to it first.
    static func split(_ arguments: [String]) -> (any Subcommand.Type, [String])? {
        for index in arguments.indices {
            guard let command = commands.first(where: { $0.name == arguments[index] }) else { continue }
            let leading = Array(arguments[..<index])
            // `leading` with no positional is options alone (a value that happens to be a command's
            // name, as in `--device-id read`, is read as the value and the search goes on).
            guard leading.isEmpty || (try? ParsedArguments(leading, specs: command.allSpecs)) != nil else { continue }
            return (command, leading + arguments[(index + 1)...])
        }
        return nil
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
        guard let (command, rest) = split(arguments) else {
            console.error("plumb: error: unknown command '\(first)'.\n\n\(overview)")
            return 2
        }
        do {
            return try command.main(rest, output: console)
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

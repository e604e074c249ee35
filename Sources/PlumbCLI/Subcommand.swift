/// One `plumb` subcommand: its name, help and options, and the work it does once its arguments
/// have been parsed.
///
/// Conforming types supply the parts; the extension parses the command line against ``specs``
/// and answers `--help` in one place, so no command repeats that skeleton.
protocol Subcommand: SendableMetatype {
    /// The word after `plumb`: `read`.
    static var name: String { get }
    /// One line for the command list of `plumb --help`.
    static var summary: String { get }
    /// The usage line, printed under every usage error and at the top of `--help`.
    static var usage: String { get }
    /// The options the command accepts. `--help` is added at the end unless the list already
    /// places it (``OptionSpec/help``).
    static var specs: [OptionSpec] { get }
    /// The paragraph of `--help` between the usage and the options.
    static var helpSummary: String { get }
    /// Text after the options in `--help`; empty by default.
    static var footer: String { get }
    /// How many positional arguments the command takes; 0 by default.
    static var maxPositionals: Int { get }
    /// Does the work; returns the exit status.
    ///
    /// - Throws: ``UsageError`` for a command-line mistake (exit 2, printed with the usage),
    ///   ``CommandFailure`` for a failure while working.
    static func run(_ parsed: ParsedArguments, output: Console) throws -> Int32
}

extension Subcommand {
    static var footer: String { "" }
    static var maxPositionals: Int { 0 }

    /// ``specs`` with `--help`, wherever the command put it or else last.
    static var allSpecs: [OptionSpec] {
        specs.contains { $0.name == OptionSpec.help.name } ? specs : specs + [.help]
    }

    /// The full `--help` text.
    static var help: String {
        helpText(usage: usage, summary: helpSummary, specs: allSpecs, footer: footer)
    }

    /// Parses `arguments` (those after the command's name), prints the help for `--help`, and
    /// otherwise runs the command.
    static func main(_ arguments: [String], output: Console) throws -> Int32 {
        let parsed = try ParsedArguments(arguments, specs: allSpecs, maxPositionals: maxPositionals)
        if parsed.has(OptionSpec.help.name) {
            output.print(help)
            return 0
        }
        return try run(parsed, output: output)
    }
}

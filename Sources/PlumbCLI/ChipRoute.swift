import Accelerometers
import Contract
import Control
import I2C
import PlumbSync
#if canImport(Glibc)
import Glibc
#endif

/// Whose readings a command shows: the running agent's, asked over its control socket, or the
/// chip's, read by the command itself under the chip lock.
enum ChipRoute {
    case agent(AgentLink)
    case direct
}

/// `source` of a command's output: `agent` or `chip`.
enum ReadingSource: String, Encodable {
    case agent, chip

    /// How text output names it.
    var text: String {
        switch self {
        case .agent: "the running agent (its calibration, zero and settings)"
        case .chip: "the chip, read by this command"
        }
    }
}

/// A report with `"source"` added to its own keys.
struct SourcedReport<Report: Encodable>: Encodable {
    let report: Report
    let source: ReadingSource

    init(_ report: Report, source: ReadingSource) {
        self.report = report
        self.source = source
    }

    private enum CodingKeys: String, CodingKey { case source }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
    }
}

/// The chip locks this process holds: kept until it exits, when the kernel drops them.
private let heldLocks = Locked<[ChipLock]>([])

extension SensorOptions {
    static let routeSpecs: [OptionSpec] = [
        .flag("--direct", "Read the chip itself, not through the running agent (refused while the agent owns the chip)."),
        .value("--socket", "PATH", "The agent's control socket (default \(ControlProtocol.defaultSocketPath))."),
    ]

    /// Decides whose readings `command` shows: the agent's when it runs and owns this chip, the
    /// chip's otherwise (the lock is taken when the chip is opened, ``claimChip(at:)``).
    ///
    /// - Parameter chipOnly: Options given that shape how the chip is read (`--rate`): through
    ///   the agent they cannot apply, and are refused rather than silently ignored.
    /// - Throws: ``CommandFailure`` when the agent owns the chip but this user may not ask it,
    ///   ``UsageError`` for a chip-only option while the agent owns the chip.
    func route(for command: String, chipOnly: [String] = [], output: Console) throws -> ChipRoute {
        guard !direct else { return .direct }
        let path: String
        switch source {
        case .hardware(let bus): path = bus
        // The simulated chip is the command's own, unless it names an agent to ask.
        case .simulated: guard socketGiven else { return .direct }
            path = "simulated"
        }
        let client: ControlClient
        do {
            client = try ControlClient(path: socketPath)
        } catch .permissionDenied {
            // Only a problem when the agent does own the chip: else the command reads it itself.
            let owner = ChipOwner.read(directory: socketDirectory)
            let at = address ?? kind.chip?.addresses.first ?? owner.flatMap { I2CAddress(parsing: $0.address) }
            if let at, (try? claimChip(at: at)) != nil { return .direct }
            throw CommandFailure("\(owner.map { "the agent (\($0.who))" } ?? "the agent") owns the chip at \(at?.description ?? "?") on"
                + " \(path), and you may not use its control socket \(socketPath), which is for group plumb. Join the"
                + " group: sudo usermod -aG plumb $USER, then log in again (or run this once as sudo -u plumb plumb"
                + " \(command)).")
        } catch .noAgent {
            return .direct
        } catch {
            output.error("warning: cannot reach the agent at \(socketPath) (\(error)); reading the chip itself.")
            return .direct
        }
        let link: AgentLink
        do { link = try AgentLink(client: client) } catch {
            throw CommandFailure("the agent at \(socketPath) did not answer: \(error)")
        }
        // Another chip than the agent's, named: the command reads that one itself.
        if (busGiven && link.owner.bus != path) || (address.map { link.owner.address != $0.description } ?? false) {
            return .direct
        }
        if let flag = chipOnly.first {
            throw UsageError("\(flag) applies when plumb reads the chip itself, but the agent (\(link.owner.who)) owns"
                + " the chip at \(link.owner.address) on \(link.owner.bus) and reads it with its own settings (change them over MQTT,"
                + " P/config/set). Leave \(flag) out, or stop the agent (\(link.owner.howToStop)) and add --direct.")
        }
        return .agent(link)
    }

    /// Takes the lock on the chip at `address` for the rest of the process.
    ///
    /// - Throws: ``CommandFailure`` naming who owns the chip and how to stop it.
    func claimChip(at address: I2CAddress) throws(CommandFailure) {
        guard case .hardware(let path) = source else { return }
        if heldLocks.withLock({ $0.contains { $0.bus == path && $0.address == address } }) { return }
        do {
            let lock = try ChipLock.acquire(bus: path, address: address)
            heldLocks.withLock { $0.append(lock) }
        } catch {
            guard error.reason == .held else { throw CommandFailure(error.description) }
            let owner = ChipOwner.read(directory: socketDirectory).flatMap { $0.bus == path ? $0 : nil }
            let who = owner.map { "the agent (\($0.who))" } ?? "another Plumb process (the agent, or another plumb command)"
            let stop = owner.map { "stop it first (\($0.howToStop))" } ?? "find it with `fuser -v \(path)` and stop it"
            throw CommandFailure("\(who) owns the chip at \(address) on \(path); reading it here as well would change its"
                + " settings and take samples from under it. "
                + (direct ? "Leave out --direct to read through the agent, or \(stop)."
                          : "Wait for it to finish, or \(stop)."))
        }
    }

    var socketDirectory: String {
        let parts = socketPath.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count > 1 ? parts.dropLast().joined(separator: "/") : "."
    }
}

import Accelerometers
import Contract
import Control
import FoundationEssentials
import PlumbDomain

/// The command line's conversation with the running agent over its control socket: typed
/// requests, their replies, and errors that say what to do.
final class AgentLink {
    let client: ControlClient
    /// Who answered `hello`: the agent's process, unit and chip.
    let owner: ChipOwner

    /// Seconds a reply may take. A self-test takes about a second, a probe a block's time.
    static let replyTimeout = 15.0

    /// Says `hello`.
    init(client: ControlClient) throws(ControlClientError) {
        self.client = client
        client.interruption = { InterruptFlag.raised }
        let reply = try client.ask(.hello, timeout: 5)
        guard case .integer(let version)? = reply["protocol"], version == ControlProtocol.version else {
            throw .malformed("the agent speaks another protocol version; update plumb so the command and the agent match")
        }
        guard let ownerValue = reply["owner"] else { throw .malformed("hello without owner") }
        do { owner = try ChipOwner(json: ownerValue) } catch { throw .malformed(error.message) }
    }

    /// `read`: the agent's current reading.
    func reading() throws(CommandFailure) -> AgentReading {
        let reply = try call(.read)
        return try decodeReading(reply)
    }

    /// `watch`: calls `body` with each new reading until it returns false, the agent goes away
    /// or Ctrl-C.
    func watch(interval: Double, _ body: (AgentReading) throws -> Bool) throws {
        do {
            try client.send(.watch(interval: interval))
            while !InterruptFlag.raised {
                let reply: [String: JSONValue]
                do { reply = try ControlClient.fields(of: try client.receive(timeout: nil)) } catch .interrupted { return }
                guard try body(try decodeReading(reply)) else { return }
            }
        } catch let error as ControlClientError {
            throw failure(error)
        }
    }

    /// `probe`: the chip as the agent's driver sees it.
    func probe() throws(CommandFailure) -> ChipProbeReport {
        let reply = try call(.probe)
        guard let value = reply["probe"] else { throw failure(.malformed("probe without probe")) }
        do { return try JSONDecoder().decode(ChipProbeReport.self, from: Data(value.bytes)) } catch {
            throw failure(.malformed("the probe's figures"))
        }
    }

    /// `selftest`: the self-test's figures, as `plumb selftest --json` prints them.
    func selfTest() throws(CommandFailure) -> [String: JSONValue] {
        let reply = try call(.selftest)
        guard case .object(let figures)? = reply["selftest"] else { throw failure(.malformed("selftest without figures")) }
        return figures
    }

    /// `vibration`: the last window's `P/vibration` object.
    func vibration() throws(CommandFailure) -> [String: JSONValue] {
        let reply = try call(.vibration)
        guard case .object(let figures)? = reply["vibration"] else { throw failure(.malformed("vibration without figures")) }
        return figures
    }

    func call(_ request: ControlRequest) throws(CommandFailure) -> [String: JSONValue] {
        do { return try client.ask(request, timeout: Self.replyTimeout) } catch { throw failure(error) }
    }

    private func decodeReading(_ reply: [String: JSONValue]) throws(CommandFailure) -> AgentReading {
        guard let value = reply["reading"] else { throw failure(.malformed("a reading reply without reading")) }
        do { return try AgentReading(json: value, now: 0) } catch { throw failure(.refused(error)) }
    }

    /// The error of a conversation that failed, naming the agent.
    func failure(_ error: ControlClientError) -> CommandFailure {
        if case .interrupted = error { return CommandFailure("interrupted.", exitCode: 130) }
        return CommandFailure("the agent (\(owner.who)): \(error)")
    }
}

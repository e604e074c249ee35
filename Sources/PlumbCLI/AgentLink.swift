import Accelerometers
import Contract
import Control
import FoundationEssentials
import Geometry
#if canImport(Glibc)
import Glibc
#endif

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

    /// `probe`: the chip as the agent's driver sees it, and what its sampler sees of the bus
    /// (`i2c_mode`, `samples_per_drain`, `sample_rate_hz`).
    func probe() throws(CommandFailure) -> (report: ChipProbeReport, sampling: [String: JSONValue]) {
        let reply = try call(.probe)
        guard let value = reply["probe"], case .object(let sampling)? = reply["sampling"] else {
            throw failure(.malformed("probe without probe"))
        }
        do { return (try JSONDecoder().decode(ChipProbeReport.self, from: Data(value.bytes)), sampling) } catch {
            throw failure(.malformed("the probe's figures"))
        }
    }

    /// `selftest`: the self-test's figures, as `plumb selftest --json` prints them.
    func selfTest() throws(CommandFailure) -> [String: JSONValue] {
        let reply = try call(.selftest)
        guard case .object(let figures)? = reply["selftest"] else { throw failure(.malformed("selftest without figures")) }
        return figures
    }

    /// `vibration`: the last window's `P/vibration` object, and its number since the agent started.
    func vibration() throws(CommandFailure) -> (window: Int, figures: [String: JSONValue]) {
        let reply = try call(.vibration)
        guard case .object(let figures)? = reply["vibration"], case .integer(let window)? = reply["window"] else {
            throw failure(.malformed("vibration without figures"))
        }
        return (window, figures)
    }

    /// Seconds a reading or a window that is not there yet is asked for again (a sensor starting,
    /// the window after a self-test).
    static let notYetPatience = 6.0

    func call(_ request: ControlRequest) throws(CommandFailure) -> [String: JSONValue] {
        var waited = 0.0
        while true {
            do { return try client.ask(request, timeout: Self.replyTimeout) } catch {
                if case .refused(let refusal) = error, refusal.code == .noReading || refusal.code == .notYet,
                   waited < Self.notYetPatience, !InterruptFlag.raised {
                    usleep(250_000)
                    waited += 0.25
                    continue
                }
                throw failure(error)
            }
        }
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

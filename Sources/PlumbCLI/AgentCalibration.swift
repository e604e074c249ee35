import Contract
import Control
import Geometry
#if canImport(Glibc)
import Glibc
#endif

/// `plumb calibrate` while the agent owns the chip: the agent collects the samples, fits, saves
/// and applies the calibration (the same as `P/command/calibrate_six_point` and
/// `calibrate_reversal`); the command guides the person through it, face by face or step by
/// step, from the agent's `calibration_progress` events, and prints the result.
///
/// Each position waits for Enter (a line on standard input), whether or not at a terminal: the
/// agent cannot see when a person has finished turning the device. Standard input closing, the
/// timeout or Ctrl-C cancel it, and the agent applies nothing.
struct AgentCalibration {
    let agent: AgentLink
    let output: Console
    let timeout: Double

    private var deadline: Double
    /// Whether the last thing on stderr is a progress bar still to be ended by a newline.
    private var barShown = false

    init(agent: AgentLink, output: Console, timeout: Double) {
        self.agent = agent
        self.output = output
        self.timeout = timeout
        deadline = monotonicNow() + timeout
    }

    /// The tumble: start, then `next` at each Enter, until the agent applies or rejects it.
    ///
    /// - Returns: The `calibration_applied` event's details.
    mutating func sixPoint() throws -> [String: JSONValue] {
        output.error("calibrating through \(ReadingSource.agent.text), \(agent.owner.who): it measures each face,"
            + " then fits, saves and applies the calibration.")
        try send(.sixPoint(.start))
        while true {
            let event = try nextEvent()
            if barShown, event.type != EventType.calibrationProgress.rawValue {
                output.error("")
                barShown = false
            }
            switch event.type {
            case EventType.calibrationProgress.rawValue:
                let message = event.details[.message]?.stringValue ?? ""
                let state = event.details[.state]?.stringValue
                // A redrawn progress bar is ended by whatever the next line says.
                if barShown, state != "averaging" || event.details[.fraction] == nil {
                    output.error("")
                    barShown = false
                }
                if let refused = event.details[.refused]?.stringValue { output.error("refused: " + refused) }
                switch state {
                case "waiting":
                    output.error(message)
                    try waitForEnter(prompt: "Lay the device still on that face, then press Enter.")
                    try send(.sixPoint(.next))
                case "averaging":
                    if let fraction = event.details[.fraction]?.numberValue {
                        output.progress(label: event.details[.face]?.stringValue ?? "", fraction: fraction)
                        barShown = true
                    } else {
                        output.error(message)
                    }
                default:
                    output.error(message)
                }
            case EventType.calibrationApplied.rawValue:
                return event.details
            case EventType.calibrationRejected.rawValue:
                throw CommandFailure("the agent applied nothing: " + (event.details[.reason]?.stringValue ?? "rejected."))
            default:
                continue
            }
        }
    }

    /// The reversal: `first` at Enter, then `second` after the turn; a refused step (the reading
    /// not yet stable, the device not turned) is tried again at the next Enter.
    mutating func reversal() throws -> [String: JSONValue] {
        output.error("calibrating through \(ReadingSource.agent.text), \(agent.owner.who): it takes both readings,"
            + " then saves and applies the calibration.")
        var step = ReversalStep.first
        while true {
            let instruction = step == .first
                ? "Put the device on the spot, let it settle, then press Enter."
                : "Turn the device 180° about the vertical on the same spot, let it settle, then press Enter."
            try waitForEnter(prompt: instruction)
            try send(.reversal(step))
            let event = try nextEvent()
            switch event.type {
            case EventType.calibrationProgress.rawValue:
                output.error("first reading taken.")
                step = .second
            case EventType.calibrationApplied.rawValue:
                return event.details
            case EventType.calibrationRejected.rawValue:
                let reason = event.details[.reason]?.stringValue ?? "rejected."
                output.error("refused: " + reason)
                // The agent keeps the first reading only while the device has not been turned.
                if step == .second, event.details[.firstKept] != .bool(true) { step = .first }
            default:
                continue
            }
        }
    }

    private func send(_ request: ControlRequest) throws {
        do { try agent.client.send(request) } catch { throw agent.failure(error) }
    }

    /// The next event for this calibration, within the deadline.
    private mutating func nextEvent() throws -> (type: String, details: [String: JSONValue]) {
        while true {
            let left = deadline - monotonicNow()
            guard left > 0 else { throw timedOut() }
            let reply: [String: JSONValue]
            do { reply = try ControlClient.fields(of: try agent.client.receive(timeout: left)) } catch .timedOut {
                throw timedOut()
            } catch .interrupted {
                cancel()
                throw CommandFailure("interrupted; the agent applied nothing.", exitCode: 130)
            } catch {
                throw agent.failure(error)
            }
            guard reply["reply"] == .string(ControlReply.event), case .object(let event)? = reply["event"],
                  let type = event["type"]?.stringValue else { continue }
            return (type, event)
        }
    }

    /// Waits for a line on standard input; EOF cancels the calibration.
    private func waitForEnter(prompt: String) throws {
        output.error(prompt)
        guard readLine() != nil else {
            cancel()
            throw CommandFailure("standard input closed before the calibration was done; the agent applied nothing.")
        }
        if InterruptFlag.raised {
            cancel()
            throw CommandFailure("interrupted; the agent applied nothing.", exitCode: 130)
        }
    }

    private func timedOut() -> CommandFailure {
        cancel()
        return CommandFailure("the calibration took longer than \(Int(timeout)) s; the agent applied nothing. Run it again,"
            + " or allow longer with --timeout.")
    }

    /// Tells the agent to drop the calibration (closing the connection does too).
    private func cancel() {
        try? agent.client.send(.sixPoint(.cancel))
    }
}

private func monotonicNow() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

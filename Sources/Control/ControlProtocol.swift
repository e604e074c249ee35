import Contract
import StrictJSON

/// The local control socket's protocol: one JSON object per line (LF) each way, UTF-8, parsed
/// strictly. The command line is its client; the agent serves it (docs/getting-started/raspberry-pi.md,
/// "The command line beside the service").
///
/// A request names itself in `"request"`; every reply names itself in `"reply"`. A connection
/// carries any number of requests, one at a time: the next is read once the last was answered
/// (a stream, `watch`, goes on until the client closes). Calibration events reach a connection
/// that has started a calibration, as `{"reply": "event", "event": {…}}`.
public enum ControlProtocol {
    /// Sent in `hello`; a client refuses an agent of another version with a clear message.
    public static let version = 1
    /// The longest request line. Requests are a few hundred bytes; a longer line is refused with
    /// `too_long` and the connection closed, so a client cannot make the agent buffer without end.
    public static let maximumLineBytes = 64 * 1024
    /// The socket where the unit's `RuntimeDirectory=plumb` puts it (config `control.socket`,
    /// `--socket`).
    public static let defaultSocketPath = "/run/plumb/control.sock"
    /// Beside the socket: who owns the chip, readable by anyone (``ChipOwner``).
    public static let ownerFileName = "owner.json"
}

/// What a client asks.
public enum ControlRequest: Sendable, Hashable {
    /// The agent, its chip and the protocol version.
    case hello
    /// The current reading.
    case read
    /// Every new reading, at most one per `interval` seconds, until the client closes.
    case watch(interval: Double)
    /// The last vibration window's figures.
    case vibration
    /// The chip: identity, bus mode, FIFO batching.
    case probe
    /// The chip's self-test, run by the agent between two blocks of sampling.
    case selftest
    /// One step of the six-point tumble.
    case sixPoint(SixPointAction)
    /// One step of the reversal.
    case reversal(ReversalStep)

    /// The `"request"` names, for the error that lists them.
    public enum Name: String, Sendable, CaseIterable {
        case hello, read, watch, vibration, probe, selftest
        case sixPoint = "six_point"
        case reversal
    }

    /// Slowest and fastest `watch` intervals.
    public static let watchIntervals = 0.05...60.0

    /// Parses one request line.
    ///
    /// - Throws: ``ControlFailure`` with `malformed` (not one strict JSON object), `unknown_request`
    ///   or `bad_field`, each saying what a request looks like.
    public init(line: some Collection<UInt8>) throws(ControlFailure) {
        let value: JSONValue
        do { value = try StrictJSON.parse(line, allowingScalars: false) } catch {
            throw ControlFailure(.malformed, "the request is not one strict JSON object (\(error.reason)); send one"
                + " object per line, such as {\"request\": \"read\"}.")
        }
        guard case .object(let fields) = value else {
            throw ControlFailure(.malformed, "the request is a JSON array; send one object per line, such as"
                + " {\"request\": \"read\"}.")
        }
        guard case .string(let text)? = fields["request"] else {
            throw ControlFailure(.malformed, "the request has no \"request\" string; one of: \(Self.names).")
        }
        guard let name = Name(rawValue: text) else {
            throw ControlFailure(.unknownRequest, "\"\(quoted(text))\" is not a request;"
                + " one of: \(Self.names).")
        }
        let allowed: Set<String> = switch name {
        case .watch: ["request", "interval_s"]
        case .sixPoint: ["request", "action"]
        case .reversal: ["request", "step"]
        default: ["request"]
        }
        if let extra = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ControlFailure(.badField, "\(name.rawValue) takes no \"\(quoted(extra))\";"
                + " its fields: \(allowed.sorted().joined(separator: ", ")).")
        }
        switch name {
        case .hello: self = .hello
        case .read: self = .read
        case .vibration: self = .vibration
        case .probe: self = .probe
        case .selftest: self = .selftest
        case .watch:
            let interval: Double
            switch fields["interval_s"] {
            case nil: interval = 0.1
            case .integer(let value)?: interval = Double(value)
            case .number(let value)?: interval = value
            default: throw ControlFailure(.badField, "watch's \"interval_s\" is a number of seconds.")
            }
            guard Self.watchIntervals.contains(interval) else {
                throw ControlFailure(.badField, "watch's \"interval_s\" is \(Self.watchIntervals.lowerBound) to"
                    + " \(Self.watchIntervals.upperBound) seconds.")
            }
            self = .watch(interval: interval)
        case .sixPoint:
            guard case .string(let text)? = fields["action"], let action = SixPointAction(rawValue: text) else {
                throw ControlFailure(.badField, "six_point takes \"action\": \(SixPointAction.list).")
            }
            self = .sixPoint(action)
        case .reversal:
            guard case .string(let text)? = fields["step"], let step = ReversalStep(rawValue: text) else {
                throw ControlFailure(.badField, "reversal takes \"step\": \(ReversalStep.list).")
            }
            self = .reversal(step)
        }
    }

    /// The line a client sends, without the LF.
    public var json: JSONValue {
        switch self {
        case .hello: .object(["request": .string(Name.hello.rawValue)])
        case .read: .object(["request": .string(Name.read.rawValue)])
        case .vibration: .object(["request": .string(Name.vibration.rawValue)])
        case .probe: .object(["request": .string(Name.probe.rawValue)])
        case .selftest: .object(["request": .string(Name.selftest.rawValue)])
        case .watch(let interval): .object(["request": .string(Name.watch.rawValue), "interval_s": .number(interval)])
        case .sixPoint(let action): .object(["request": .string(Name.sixPoint.rawValue), "action": .string(action.rawValue)])
        case .reversal(let step): .object(["request": .string(Name.reversal.rawValue), "step": .string(step.rawValue)])
        }
    }

    static let names = Name.allCases.map(\.rawValue).joined(separator: ", ")
}

/// A client's text as a reply quotes it: at most 64 characters, controls shown as `?`, so an
/// answer printed on a terminal or logged stays one plain line.
func quoted(_ text: String) -> String {
    let scalars = text.unicodeScalars.prefix(64).map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : Character($0) }
    return String(scalars) + (text.unicodeScalars.count > 64 ? "…" : "")
}

/// A request refused, or a failure answering it: `{"reply": "error", "error": {"code", "message"}}`.
public struct ControlFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `code`: what a client may act on. The message is for the person.
    public enum Code: String, Sendable, CaseIterable {
        case malformed
        case unknownRequest = "unknown_request"
        case badField = "bad_field"
        case tooLong = "too_long"
        /// Too many clients at once.
        case busy
        /// No current reading (the sensor is starting, faulty or running a self-test); a client
        /// may ask again in a moment.
        case noReading = "no_reading"
        /// The vibration analysis is off.
        case noVibration = "no_vibration"
        /// Not yet: the first vibration window is not complete (after a start, a rate change or a
        /// self-test); a client may ask again in a moment.
        case notYet = "not_yet"
        /// Another request of the same kind runs (a self-test), or a calibration another started.
        case inProgress = "in_progress"
        /// The chip could not do it (a fault during the self-test, the probe).
        case chip
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The reply line's value.
    public var json: JSONValue {
        .object(["reply": .string(ControlReply.error), "error": .object(["code": .string(code.rawValue),
                                                                        "message": .string(message)])])
    }
}

/// The `"reply"` names.
public enum ControlReply {
    public static let hello = "hello"
    public static let reading = "reading"
    public static let vibration = "vibration"
    public static let probe = "probe"
    public static let selftest = "selftest"
    public static let accepted = "accepted"
    public static let event = "event"
    public static let error = "error"

    /// `{"reply": name, …fields}`.
    public static func message(_ name: String, _ fields: [String: JSONValue] = [:]) -> JSONValue {
        var object = fields
        object["reply"] = .string(name)
        return .object(object)
    }
}

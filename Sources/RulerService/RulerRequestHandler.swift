import Contract
import StrictJSON

/// Answers ruler-service requests: JSON request bytes in, a reply out. Pure: no I/O, no clock;
/// the agent passes in the current reading and, for requests stamped `sent_at`, the time.
///
/// Every payload gets a reply: empty, not strict JSON (`StrictJSON`: the reply names the
/// problem, its line and column), not an object, too large, or for an unknown service, it is an
/// error saying what to send instead. The request's `transaction` string is
/// echoed whenever the payload could be read.
public struct RulerRequestHandler: Sendable {
    /// The largest payload read; a larger one is answered `too_large` without being parsed.
    public static let maximumPayloadBytes = 16 * 1024

    /// Seconds after its `sent_at` when a request is answered `stale` (`service.request_timeout_s`).
    public let requestTimeout: Double

    public init(requestTimeout: Double = 30) {
        self.requestTimeout = requestTimeout
    }

    /// The reply to `payload` sent to `service`, the last level of `P/request/<service>` as it
    /// came in: a name that is no ``RulerServiceName`` is answered `bad_request`, listing them.
    ///
    /// - Parameter reading: the current filtered reading, which `rise` and `shim` need (they
    ///   answer `no_reading` without one); ignored by `ruler` and `convert`.
    /// - Parameter now: the wall-clock time (Unix seconds) a `sent_at` is compared with; nil
    ///   answers every request, however old it says it is.
    public func reply(service: String, payload: [UInt8], reading: CurrentReading?, now: Double? = nil) -> ServiceReply {
        reply(service: RulerServiceName(rawValue: service), named: service, payload: payload, reading: reading, now: now)
    }

    /// The reply to `payload` sent to `service`.
    ///
    /// - Parameter reading: as for ``reply(service:payload:reading:)``.
    public func reply(to service: RulerServiceName, payload: [UInt8], reading: CurrentReading?,
                      now: Double? = nil) -> ServiceReply {
        reply(service: service, named: service.rawValue, payload: payload, reading: reading, now: now)
    }

    /// `name` is what the request called the service; `service` is nil when that is none.
    private func reply(service: RulerServiceName?, named name: String, payload: [UInt8],
                       reading: CurrentReading?, now: Double?) -> ServiceReply {
        guard payload.count <= Self.maximumPayloadBytes else {
            return .failure(.tooLarge, "the request is \(payload.count) bytes; the limit is \(Self.maximumPayloadBytes)"
                + " (16 KiB): send a smaller request.", transaction: nil)
        }
        let decoded = Self.decode(payload)
        var transaction: String?
        if case .success(.object(let object)) = decoded, case .string(let echoed)? = object["transaction"] {
            transaction = echoed
        }
        do throws(RequestFailure) {
            guard let service else {
                throw .badRequest("there is no \"\(name)\" service; the services are "
                    + RulerServiceName.list + ", at P/request/<service>.")
            }
            let object = try Self.object(from: decoded, service: service)
            try checkAge(object, now: now)
            return .ok(try answer(service: service, object: object, reading: reading), transaction: transaction)
        } catch {
            return .failure(error.code, error.message, transaction: transaction)
        }
    }

    /// Refuses a request whose `sent_at` (Unix seconds, as the requester's clock had it) is more
    /// than ``requestTimeout`` before `now`. One from the future is answered: clocks differ by
    /// seconds, and nobody waits on an answer that comes early.
    private func checkAge(_ object: [String: JSONValue], now: Double?) throws(RequestFailure) {
        let sentAt: Double
        switch object["sent_at"] {
        case nil, .null?: return
        case .number(let value)?: sentAt = value
        case .integer(let value)?: sentAt = Double(value)
        default:
            throw .badRequest("\"sent_at\" is the time the request was sent, in Unix seconds, such as 1764626400.5.")
        }
        guard sentAt > 0 else {
            throw .badRequest("\"sent_at\" is the time the request was sent, in Unix seconds (above 0), such as 1764626400.5.")
        }
        guard let now, now - sentAt > requestTimeout else { return }
        let age = Int((now - sentAt).rounded(.down))
        throw RequestFailure(.stale, "the request was sent \(age) s ago, more than service.request_timeout_s"
            + " (\(Int(requestTimeout)) s): it waited at the broker and was not answered late. Send it again.")
    }

    /// Only the echoed transaction, cheaply, for `busy` replies to a flood: nil when the payload
    /// is too large, not a strict JSON object (as ``reply(service:payload:reading:)`` reads it),
    /// or has no `transaction` string.
    public static func transaction(in payload: [UInt8]) -> String? {
        guard payload.count <= maximumPayloadBytes,
              case .object(let object)? = try? StrictJSON.parse(payload, allowingScalars: false),
              case .string(let transaction)? = object["transaction"] else { return nil }
        return transaction
    }

    private func answer(service: RulerServiceName, object: [String: JSONValue],
                        reading: CurrentReading?) throws(RequestFailure) -> ServiceReply.Body {
        switch service {
        case .ruler: .ruler(try rulerData(object))
        case .convert: .value(try convertData(object))
        case .rise: .value(try riseData(object, reading: reading))
        case .shim: .value(try shimData(object, reading: reading))
        }
    }

    /// The payload as strict JSON (RFC 8259: no trailing commas, comments, NaN, duplicate keys,
    /// `\u0000` or trailing garbage), or what is wrong with it and where.
    private static func decode(_ payload: [UInt8]) -> Result<JSONValue, RequestFailure> {
        guard payload.contains(where: { !Self.isJSONWhitespace($0) }) else {
            return .failure(.badRequest("the payload is empty"))
        }
        do {
            return .success(try StrictJSON.parse(payload, allowingScalars: true))
        } catch {
            return .failure(.badRequest("the payload is \(error)"))
        }
    }

    /// The request object, or what is wrong with the payload and what to send instead.
    private static func object(from decoded: Result<JSONValue, RequestFailure>,
                               service: RulerServiceName) throws(RequestFailure) -> [String: JSONValue] {
        let example = example(service)
        switch decoded {
        case .failure(let failure):
            throw .badRequest("\(failure.message); send a JSON object such as \(example).")
        case .success(.object(let object)):
            if let transaction = object["transaction"] {
                switch transaction {
                case .string, .null: break
                default: throw .badRequest("\"transaction\" must be a string, which the reply echoes; such as \"t1\".")
                }
            }
            return object
        case .success:
            throw .badRequest("the payload must be a JSON object, such as \(example).")
        }
    }

    /// A small valid request to `service`, for error messages.
    static func example(_ service: RulerServiceName) -> String {
        switch service {
        case .ruler: #"{"length":30,"unit":"cm"}"#
        case .convert: #"{"value":12,"from":"in","to":"cm"}"#
        case .rise: #"{"span":1.2,"unit":"m"}"#
        case .shim: #"{"length":1.2,"width":0.8,"unit":"m"}"#
        }
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

extension RulerServiceName {
    /// Whether the service works from the current reading (`rise`, `shim`), which the caller
    /// must then pass to ``RulerRequestHandler/reply(to:payload:reading:)``.
    public var needsReading: Bool {
        switch self {
        case .ruler, .convert: false
        case .rise, .shim: true
        }
    }
}

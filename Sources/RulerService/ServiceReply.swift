import Contract

/// Why a request was not answered with data. The raw values are the `code` field of a reply.
public enum ServiceErrorCode: String, Sendable {
    /// The request is malformed or asks for something impossible; the message says what to fix.
    case badRequest = "bad_request"
    /// The request, or the answer it asks for, is over a size limit.
    case tooLarge = "too_large"
    /// Too many requests; sent by the caller that rate-limits, never by the handler.
    case busy
    /// The request needs a reading and there is none usable (starting, a sensor fault, or the
    /// level tipped 90° or more).
    case noReading = "no_reading"
    /// The request says it was sent (`sent_at`) longer ago than `service.request_timeout_s`: it
    /// waited at the broker (the agent away, or its inbound path stalled), and its requester
    /// has given up on it. Send it again for an answer.
    case stale
}

/// A reply to a ruler-service request: data, or an error with its code, and the request's
/// `transaction` echoed when it had one.
public struct ServiceReply: Sendable, Equatable {
    /// The answer as the handler made it: a value, or a ruler's ticks kept as ticks until they
    /// are written (see ``RulerReplyData``).
    enum Body: Sendable, Equatable {
        case value(JSONValue)
        case ruler(RulerReplyData)
    }

    private var body: Body?
    /// What went wrong and what to do, for a person; nil on success.
    public var error: String?
    /// The kind of error; nil on success.
    public var code: ServiceErrorCode?
    /// The request's `transaction`, echoed; nil when it had none (or it could not be read).
    public var transaction: String?

    public init(data: JSONValue?, error: String?, code: ServiceErrorCode?, transaction: String?) {
        self.init(body: data.map(Body.value), error: error, code: code, transaction: transaction)
    }

    init(body: Body?, error: String?, code: ServiceErrorCode?, transaction: String?) {
        self.body = body
        self.error = error
        self.code = code
        self.transaction = transaction
    }

    /// The answer; nil on an error. A ruler's is built here, on demand: the agent never needs
    /// the tree (``bytes`` writes the ticks straight out), the command line and tests do.
    public var data: JSONValue? {
        switch body {
        case .value(let value): value
        case .ruler(let ruler): ruler.json
        case nil: nil
        }
    }

    /// A successful reply carrying `data`.
    public static func ok(_ data: JSONValue, transaction: String?) -> ServiceReply {
        ServiceReply(data: data, error: nil, code: nil, transaction: transaction)
    }

    static func ok(_ body: Body, transaction: String?) -> ServiceReply {
        ServiceReply(body: body, error: nil, code: nil, transaction: transaction)
    }

    /// An error reply; `message` says what went wrong and what to do.
    public static func failure(_ code: ServiceErrorCode, _ message: String, transaction: String?) -> ServiceReply {
        ServiceReply(data: nil, error: message, code: code, transaction: transaction)
    }

    /// The reply as compact JSON with sorted keys, the same text `JSONValue.bytes` writes:
    /// `{"data":{…},"status":"ok","transaction":"…"}` or
    /// `{"code":"bad_request","error":"…","status":"error","transaction":"…"}`, without
    /// `transaction` when there is none.
    public var bytes: [UInt8] {
        var object: [String: JSONValue] = [:]
        if let code {
            object["status"] = .string("error")
            object["code"] = .string(code.rawValue)
            object["error"] = .string(error ?? code.rawValue)
        } else {
            object["status"] = .string("ok")
            switch body {
            case .ruler(let ruler):
                // "data" sorts first: the ticks go straight into the output, with no tree.
                var output = ReplyEncoding.start(capacity: ruler.estimatedBytes + 256)
                output.append(contentsOf: #"{"data":"#.utf8)
                ruler.write(to: &output)
                if let transaction { object["transaction"] = .string(transaction) }
                ReplyEncoding.writeMembers(object, to: &output, leadingComma: true)
                output.append(UInt8(ascii: "}"))
                return output
            case .value(let value): object["data"] = value
            case nil: object["data"] = .null
            }
        }
        if let transaction { object["transaction"] = .string(transaction) }
        return ReplyEncoding.bytes(of: .object(object))
    }
}

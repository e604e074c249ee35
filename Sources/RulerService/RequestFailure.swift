import Ruler

/// Why a request gets an error reply: the code and the message for a person.
struct RequestFailure: Error {
    let code: ServiceErrorCode
    let message: String

    init(_ code: ServiceErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    static func badRequest(_ message: String) -> RequestFailure {
        RequestFailure(.badRequest, message)
    }

    /// The ruler's own errors, each kind to the code its documentation names.
    init(_ error: RulerError) {
        let code: ServiceErrorCode = switch error.kind {
        case .invalid: .badRequest
        case .tooLarge: .tooLarge
        case .unmeasurable: .noReading
        }
        self.init(code, error.message)
    }
}

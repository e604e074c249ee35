/// What is wrong with one kind of text (an angle, a mount, a length): the reasons a parser of
/// that kind gives, with what it is called and the forms it accepts.
public protocol TextParseReason: Hashable, Sendable {
    /// What the text should have been, after "is not": `an angle`, `a valid mount`.
    static var subject: String { get }
    /// Every form the parser accepts, one or two sentences a person can copy from.
    static var acceptedForms: String { get }
    /// What is wrong, as a clause: `it is empty`.
    var problem: String { get }
}

/// Why a piece of text could not be read: the one shape every parser of typed text throws, so
/// that each message quotes the text, says what is wrong, and lists what to type instead.
public struct TextParseError<Problem: TextParseReason>: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind's reasons, so that `AngleParseError.Reason.empty` reads as it did.
    public typealias Reason = Problem

    /// The text exactly as it was given.
    public let text: String
    /// What was wrong with it.
    public let reason: Reason

    public init(text: String, reason: Reason) {
        self.text = text
        self.reason = reason
    }

    public var description: String {
        "\"\(text)\" is not \(Reason.subject): \(reason.problem). \(Reason.acceptedForms)"
    }
}

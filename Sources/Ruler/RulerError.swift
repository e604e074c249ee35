/// Why a ruler, rise or shim could not be worked out.
///
/// The ``message`` is for a person: it says what was wrong and what to give instead.
public struct RulerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of problem, which decides how a service answers it.
    public enum Kind: Sendable, Equatable {
        /// The input is wrong: a length out of range, a style for another unit, an indicator
        /// off the ruler. The ruler service answers `bad_request`.
        case invalid
        /// The input is fine but the ruler would need more than ``RulerLayout/maximumTicks``
        /// ticks. The ruler service answers `too_large`.
        case tooLarge
        /// The reading cannot give a rise or shims: the level is tilted 89° or more from flat
        /// (or reads no gravity), or the reading is not finite. The ruler service answers
        /// `no_reading`.
        case unmeasurable
    }

    /// The kind of problem.
    public let kind: Kind
    /// What was wrong and what to do, for a person.
    public let message: String

    /// An error of `kind`; `message` says what was wrong and what to give instead.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

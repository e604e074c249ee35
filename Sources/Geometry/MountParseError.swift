/// Why a piece of text could not be read as a mount or an axis remap.
///
/// The ``description`` is meant for a person: it quotes the text, says what is wrong, and shows
/// a valid example.
public struct MountParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong with the text.
    public enum Reason: Hashable, Sendable {
        /// The text was empty or only whitespace.
        case empty
        /// A single word that is neither `flat` nor `upright` (only from ``Mount/init(parsing:)``).
        case unknownMount
        /// Not three comma-separated parts (the number found is given).
        case wrongAxisCount(Int)
        /// A part that is not `x`, `y` or `z` with an optional sign (the part is given).
        case notAnAxis(String)
        /// A device axis used more than once, so another is missing (the axis is given).
        case repeatedAxis(String)
        /// A valid signed permutation, but a mirror image (determinant −1). A rigid device can
        /// only be rotated, so no real mounting produces it. The associated text is the same
        /// remap with the last sign flipped, which is proper, to suggest as a fix.
        case mirrored(suggestion: String)
    }

    /// The text exactly as it was given.
    public let text: String
    /// What was wrong with it.
    public let reason: Reason

    public init(text: String, reason: Reason) {
        self.text = text
        self.reason = reason
    }

    public var description: String {
        let problem = switch reason {
        case .empty:
            "it is empty"
        case .unknownMount:
            "it is neither flat, upright, nor an axis remap"
        case .wrongAxisCount(let count):
            "an axis remap needs exactly three comma-separated axes, found \(count)"
        case .notAnAxis(let part):
            "\"\(part)\" is not an axis; each part is x, y or z, optionally signed"
        case .repeatedAxis(let axis):
            "device axis \(axis) is used more than once, so another axis is missing"
        case .mirrored(let suggestion):
            "that mapping is a mirror image (determinant −1), and a rigid device can only be"
                + " rotated, never mirrored; flip the sign of one axis, for example \"\(suggestion)\""
        }
        return "\"\(text)\" is not a valid mount: \(problem). \(Self.help)"
    }

    static let help = "A mount is flat, upright, or an axis remap giving, for the level x, y and z"
        + " axes in turn, the device axis each one reads: \"x,-z,y\" means level x = device x,"
        + " level y = −device z, level z = device y (that is the upright mount)."
}

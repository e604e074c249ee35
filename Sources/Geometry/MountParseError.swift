/// Why a piece of text could not be read as a mount or an axis remap.
public typealias MountParseError = TextParseError<MountParseReason>

/// What was wrong with the text of a mount.
public enum MountParseReason: TextParseReason {
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

    public static let subject = "a valid mount"

    public var problem: String {
        switch self {
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
    }

    public static let acceptedForms = "A mount is flat, upright, or an axis remap giving, for the level x, y and z"
        + " axes in turn, the device axis each one reads: \"x,-z,y\" means level x = device x,"
        + " level y = −device z, level z = device y (that is the upright mount)."
}

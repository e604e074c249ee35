/// How the device is fixed to the thing being levelled, which decides the level frame.
///
/// The level frame has z up when the thing is level; ``Attitude`` is computed in it.
public enum Mount: Hashable, Sendable, CustomStringConvertible {
    /// The device lies face up: the level frame is the device frame, and roll and pitch read
    /// the two axes of a bubble.
    case flat
    /// The device is fixed to a vertical face, x along the level axis like a bar level, y
    /// pointing up. The level frame is (gx, −gz, gy), the remap `"x,-z,y"`, so pitch is the
    /// slope along the bar and roll is the lean of the face out of vertical.
    case upright
    /// Any other proper axis remap.
    ///
    /// `.custom(.identity)` means the same as `.flat`, and `.custom` of `"x,-z,y"` the same as
    /// `.upright`, but they are distinct values that keep the text they were written with;
    /// compare ``remap`` to ask whether two mounts behave alike.
    case custom(AxisRemap)

    /// Reads `flat`, `upright` (any letter case), or an axis remap such as `"x,-z,y"`.
    ///
    /// A remap is kept as `.custom` even when it equals a named mount, so ``name`` gives back
    /// what was written.
    ///
    /// - Throws: ``MountParseError`` for empty text, an unknown word, or an invalid remap
    ///   (see ``AxisRemap/init(parsing:)``).
    public init(parsing text: String) throws(MountParseError) {
        let word = text.trimmingWhitespace.lowercased()
        switch word {
        case "":
            throw MountParseError(text: text, reason: .empty)
        case "flat":
            self = .flat
        case "upright":
            self = .upright
        default:
            // A single word cannot be a remap; saying "unknown mount" beats "found 1 axis".
            guard word.contains(",") else { throw MountParseError(text: text, reason: .unknownMount) }
            self = .custom(try AxisRemap(parsing: text))
        }
    }

    /// `flat`, `upright`, or the remap text; parsing it gives back an equal mount.
    public var name: String {
        switch self {
        case .flat: "flat"
        case .upright: "upright"
        case .custom(let remap): remap.description
        }
    }

    public var description: String { name }

    /// The signed permutation from the device frame to the level frame.
    public var remap: AxisRemap {
        switch self {
        case .flat: .identity
        case .upright: Mount.uprightRemap
        case .custom(let remap): remap
        }
    }

    /// `"x,-z,y"`: level x = device x, level y = −device z, level z = device y.
    private static let uprightRemap = AxisRemap(
        levelX: .init(axis: 0, negated: false),
        levelY: .init(axis: 2, negated: true),
        levelZ: .init(axis: 1, negated: false)
    )

    /// The gravity `deviceGravity`, read in the device frame, expressed in the level frame.
    public func levelFrame(_ deviceGravity: Vector3) -> Vector3 {
        remap.apply(deviceGravity)
    }
}

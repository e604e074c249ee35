/// A signed permutation of axes that turns a device-frame vector into the level frame.
///
/// Written as three comma-separated parts, one per level axis (x, y, z in turn), each naming
/// the device axis it reads with an optional sign: `"x,-z,y"` means level x = device x,
/// level y = −device z, level z = device y. Only proper rotations (determinant +1) exist: the
/// 24 ways to lay a rigid box on its faces. Mirror images are rejected at parsing.
public struct AxisRemap: Hashable, Sendable, CustomStringConvertible {
    /// A device axis (0 = x, 1 = y, 2 = z), possibly negated.
    struct SignedAxis: Hashable, Sendable {
        let axis: Int
        let negated: Bool

        func read(_ v: Vector3) -> Double {
            let value = switch axis {
            case 0: v.x
            case 1: v.y
            default: v.z
            }
            return negated ? -value : value
        }

        /// The device axis as a unit vector, with the sign: row of the remap's matrix.
        var unitVector: Vector3 {
            let sign: Double = negated ? -1 : 1
            return Vector3(x: axis == 0 ? sign : 0, y: axis == 1 ? sign : 0, z: axis == 2 ? sign : 0)
        }

        var text: String { (negated ? "-" : "") + AxisRemap.axisNames[axis] }
    }

    static let axisNames = ["x", "y", "z"]

    // Three stored parts rather than an array: `apply` runs for every sample and should not
    // touch the heap.
    let levelX: SignedAxis
    let levelY: SignedAxis
    let levelZ: SignedAxis

    /// Unchecked: callers guarantee a proper signed permutation.
    init(levelX: SignedAxis, levelY: SignedAxis, levelZ: SignedAxis) {
        self.levelX = levelX
        self.levelY = levelY
        self.levelZ = levelZ
    }

    /// The remap that changes nothing, `"x,y,z"`.
    public static let identity = AxisRemap(
        levelX: SignedAxis(axis: 0, negated: false),
        levelY: SignedAxis(axis: 1, negated: false),
        levelZ: SignedAxis(axis: 2, negated: false)
    )

    /// Reads a remap such as `"x,-z,y"`.
    ///
    /// Whitespace around parts, a leading `+` and upper-case letters are accepted.
    ///
    /// - Throws: ``MountParseError`` when the text is not three parts, a part is not a signed
    ///   axis, an axis repeats (so another is missing), or the mapping is a mirror image.
    public init(parsing text: String) throws(MountParseError) {
        guard !text.trimmingWhitespace.isEmpty else { throw MountParseError(text: text, reason: .empty) }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw MountParseError(text: text, reason: .wrongAxisCount(parts.count))
        }
        var axes: [SignedAxis] = []
        for part in parts {
            guard let axis = Self.signedAxis(part) else {
                throw MountParseError(text: text, reason: .notAnAxis(String(part.trimmingWhitespace)))
            }
            if axes.contains(where: { $0.axis == axis.axis }) {
                throw MountParseError(text: text, reason: .repeatedAxis(Self.axisNames[axis.axis]))
            }
            axes.append(axis)
        }
        let remap = AxisRemap(levelX: axes[0], levelY: axes[1], levelZ: axes[2])
        guard remap.determinant == 1 else {
            let flipped = SignedAxis(axis: axes[2].axis, negated: !axes[2].negated)
            let suggestion = AxisRemap(levelX: axes[0], levelY: axes[1], levelZ: flipped)
            throw MountParseError(text: text, reason: .mirrored(suggestion: suggestion.description))
        }
        self = remap
    }

    private static func signedAxis(_ part: Substring) -> SignedAxis? {
        var body = part.trimmingWhitespace.lowercased()[...]
        var negated = false
        if body.first == "-" || body.first == "+" {
            negated = body.first == "-"
            body = body.dropFirst()
        }
        guard let axis = axisNames.firstIndex(of: String(body)) else { return nil }
        return SignedAxis(axis: axis, negated: negated)
    }

    /// +1 for a rotation, −1 for a mirror image: the permutation's parity times the signs.
    private var determinant: Int {
        let order = [levelX.axis, levelY.axis, levelZ.axis]
        var sign = 1
        for i in 0..<3 {
            for j in (i + 1)..<3 where order[i] > order[j] {
                sign = -sign
            }
        }
        for part in [levelX, levelY, levelZ] where part.negated {
            sign = -sign
        }
        return sign
    }

    /// The device-frame vector `v` expressed in the level frame. Lengths are unchanged.
    public func apply(_ v: Vector3) -> Vector3 {
        Vector3(x: levelX.read(v), y: levelY.read(v), z: levelZ.read(v))
    }

    /// The same mapping as a ``Rotation``, to compose with other rotations.
    public var rotation: Rotation {
        Rotation(uncheckedRows: levelX.unitVector, levelY.unitVector, levelZ.unitVector)
    }

    /// The canonical text, for example `"x,-z,y"`: lower case, no `+`, no spaces. Parsing it
    /// gives back an equal remap.
    public var description: String {
        [levelX, levelY, levelZ].map(\.text).joined(separator: ",")
    }
}

import Geometry

/// A user-set "this is level", applied as a rotation.
///
/// Zeroing records the gravity read while the thing sits in the pose that should count as
/// level. Later readings are turned by the smallest rotation that takes that reference onto
/// straight up, so the reference pose reads exactly level and every other pose reads its true
/// angle from it. Subtracting the reference's roll and pitch instead would be wrong away from
/// small angles, because roll and pitch do not add.
///
/// Apply it in the same frame the reference was taken in (normally the mount's level frame).
/// Only the reference gravity is stored and encoded, since the rotation follows from it.
public struct ZeroReference: Hashable, Sendable, Codable {
    /// The gravity read in the pose that counts as level, as given (any magnitude, in g).
    public let referenceGravity: Vector3
    /// Takes the reference direction onto +z.
    private let correction: Rotation

    /// A zero reference for the pose that reads `referenceGravity`; nil when that vector is
    /// zero or non-finite, since it then has no direction.
    public init?(referenceGravity: Vector3) {
        guard let correction = Rotation.aligning(referenceGravity, to: Vector3(x: 0, y: 0, z: 1)) else {
            return nil
        }
        self.referenceGravity = referenceGravity
        self.correction = correction
    }

    /// `gravity` turned so that the reference reads straight up: the reference itself comes out
    /// as (0, 0, |g|). The length of `gravity` is kept.
    public func corrected(_ gravity: Vector3) -> Vector3 {
        correction.apply(gravity)
    }

    private enum CodingKeys: String, CodingKey {
        case referenceGravity
    }

    /// Decodes the stored reference gravity and rebuilds the rotation from it.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the stored vector is zero or non-finite, so
    ///   a damaged file is reported instead of silently zeroing nothing.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let gravity = try container.decode(Vector3.self, forKey: .referenceGravity)
        guard let reference = ZeroReference(referenceGravity: gravity) else {
            throw DecodingError.dataCorruptedError(
                forKey: .referenceGravity, in: container,
                debugDescription: "A zero reference needs a finite, non-zero gravity vector."
            )
        }
        self = reference
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(referenceGravity, forKey: .referenceGravity)
    }
}

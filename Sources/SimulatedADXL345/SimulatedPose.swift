#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry
import Level

/// One attitude of the simulated chip: where it lies and how, and what it lies on.
///
/// The gravity it senses is built in four steps, each a plain rotation, so that every part means
/// what a person doing the calibration would do:
///
/// 1. **the surface**: a device lying flat (+z up) at heading 0 on a surface tilted by
///    ``surfaceRoll`` and ``surfacePitch`` reads `Attitude.gravity(roll:pitch:)` of that tilt;
/// 2. **the turn**: the device turned by ``turn`` about the surface normal on the same spot. The
///    surface stays where it is, so its tilt turns the other way in the device frame: by 180° it
///    flips (x, y, z) → (−x, −y, z), which is what the reversal method relies on;
/// 3. **roll and pitch** of the device against the surface (a wedge under it), with Plumb's angle
///    conventions: on a level surface `roll: 3` reads roll 3°;
/// 4. **the face**: which device axis points up, as in the tumble (``Face``). Roll and pitch
///    tip it about the axes it would have lying on +z, so `face:+x roll:15` lies 15° off the +x
///    face.
public struct SimulatedPose: Sendable, Hashable {
    /// Which device axis points up.
    public var face: Face
    /// Roll of the device against the surface.
    public var roll: Angle
    /// Pitch of the device against the surface.
    public var pitch: Angle
    /// Heading about the surface normal, counter-clockwise seen from above.
    public var turn: Angle
    /// The surface's own roll (about the device's x axis at heading 0).
    public var surfaceRoll: Angle
    /// The surface's own pitch.
    public var surfacePitch: Angle

    /// A pose; every part defaults to flat, face up, on a level surface.
    public init(face: Face = .plusZ, roll: Angle = .zero, pitch: Angle = .zero, turn: Angle = .zero,
                surfaceRoll: Angle = .zero, surfacePitch: Angle = .zero) {
        self.face = face
        self.roll = roll
        self.pitch = pitch
        self.turn = turn
        self.surfaceRoll = surfaceRoll
        self.surfacePitch = surfacePitch
    }

    /// Flat, face up, on a level surface: (0, 0, +1) g.
    public static let level = SimulatedPose()

    /// The specific force the chip senses at rest in this pose, 1 g, in the device frame.
    public var gravity: Vector3 {
        let surface = Attitude.gravity(roll: surfaceRoll, pitch: surfacePitch)
        // Turned by ψ about z: a vector fixed to the surface is seen rotated by −ψ.
        let c = cos(turn.radians), s = sin(turn.radians)
        let turned = Vector3(x: c * surface.x + s * surface.y, y: -s * surface.x + c * surface.y, z: surface.z)
        // Rx(−roll) · Ry(−pitch): maps (0, 0, 1) to Attitude.gravity(roll:pitch:).
        let cp = cos(pitch.radians), sp = sin(pitch.radians)
        let pitched = Vector3(x: cp * turned.x - sp * turned.z, y: turned.y, z: sp * turned.x + cp * turned.z)
        let cr = cos(roll.radians), sr = sin(roll.radians)
        let rolled = Vector3(x: pitched.x, y: cr * pitched.y + sr * pitched.z, z: -sr * pitched.y + cr * pitched.z)
        return Self.onFace(face, rolled)
    }

    /// The proper rotation taking the +z pose to `face`'s: it maps (0, 0, 1) to `face.gravity`.
    static func onFace(_ face: Face, _ v: Vector3) -> Vector3 {
        switch face {
        case .plusZ: v
        case .minusZ: Vector3(x: v.x, y: -v.y, z: -v.z)  // 180° about x
        case .plusX: Vector3(x: v.z, y: v.y, z: -v.x)  // +90° about y
        case .minusX: Vector3(x: -v.z, y: v.y, z: v.x)  // −90° about y
        case .plusY: Vector3(x: v.x, y: v.z, z: -v.y)  // −90° about x
        case .minusY: Vector3(x: v.x, y: -v.z, z: v.y)  // +90° about x
        }
    }
}

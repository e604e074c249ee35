import Geometry
import GeometryTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

private let s45 = 0.5.squareRoot()

@Suite("Attitude, flat mount")
struct FlatAttitudeTests {
    @Test("Face up reads zero roll, pitch and tilt, and is level at zero tolerance")
    func faceUpIsLevel() {
        let attitude = Attitude(gravity: Vector3(x: 0, y: 0, z: 1))
        #expect(attitude.roll == .zero)
        #expect(attitude.pitch == .zero)
        #expect(attitude.tilt == .zero)
        #expect(attitude.isLevel(tolerance: .zero))
    }

    @Test("The magnitude of the reading does not change the attitude", arguments: [0.5, 0.98, 1.02, 3.0])
    func magnitudeDoesNotMatter(scale: Double) {
        let unit = Vector3(x: 0.1, y: -0.2, z: 0.97)
        let reference = Attitude(gravity: unit)
        let scaled = Attitude(gravity: unit * scale)
        expectClose(scaled.roll, degrees: reference.roll.degrees)
        expectClose(scaled.pitch, degrees: reference.pitch.degrees)
        expectClose(scaled.tilt, degrees: reference.tilt.degrees)
    }

    @Test("+y raised by 45° is roll +45°, −45° the other way; pitch stays 0, tilt 45°", arguments: [1.0, -1.0])
    func roll45(sign: Double) {
        let attitude = Attitude(gravity: Vector3(x: 0, y: sign * s45, z: s45))
        expectClose(attitude.roll, degrees: sign * 45)
        expectClose(attitude.pitch, degrees: 0)
        expectClose(attitude.tilt, degrees: 45)
    }

    @Test("+x lowered by 45° is pitch +45°, raised is −45°; roll stays 0, tilt 45°", arguments: [1.0, -1.0])
    func pitch45(sign: Double) {
        let attitude = Attitude(gravity: Vector3(x: -sign * s45, y: 0, z: s45))
        expectClose(attitude.pitch, degrees: sign * 45)
        expectClose(attitude.roll, degrees: 0)
        expectClose(attitude.tilt, degrees: 45)
    }

    @Test("Roll and pitch of ±89.9° are read exactly, not saturated", arguments: [89.9, -89.9])
    func nearlyVertical(degrees: Double) {
        let r = degrees * .pi / 180
        let rolled = Attitude(gravity: Vector3(x: 0, y: sin(r), z: cos(r)))
        expectClose(rolled.roll, degrees: degrees)
        expectClose(rolled.tilt, degrees: abs(degrees))
        let pitched = Attitude(gravity: Vector3(x: -sin(r), y: 0, z: cos(r)))
        expectClose(pitched.pitch, degrees: degrees)
        expectClose(pitched.tilt, degrees: abs(degrees))
    }

    @Test("On its +y edge: roll 90°, tilt 90°; on its −x end: pitch 90°, tilt 90°")
    func onEdge() {
        let onSide = Attitude(gravity: Vector3(x: 0, y: 1, z: 0))
        expectClose(onSide.roll, degrees: 90)
        expectClose(onSide.pitch, degrees: 0)
        expectClose(onSide.tilt, degrees: 90)
        let onEnd = Attitude(gravity: Vector3(x: -1, y: 0, z: 0))
        expectClose(onEnd.pitch, degrees: 90)
        expectClose(onEnd.tilt, degrees: 90)
        // Roll is undefined about the vertical; it must still come out finite.
        #expect(onEnd.roll.isFinite)
    }

    @Test("Upside down reads tilt 180° and roll 180°")
    func upsideDown() {
        let attitude = Attitude(gravity: Vector3(x: 0, y: 0, z: -1))
        expectClose(attitude.tilt, degrees: 180)
        expectClose(attitude.roll, degrees: 180)
        expectClose(attitude.pitch, degrees: 0)
        #expect(!attitude.isLevel(tolerance: deg(179)))
    }

    @Test("Rolled 180° and pitched 10°: roll 180°, pitch 10°, tilt 170°")
    func upsideDownAndPitched() {
        let attitude = Attitude(gravity: sensedUp(rollDegrees: 180, pitchDegrees: 10))
        expectClose(attitude.roll, degrees: 180)
        expectClose(attitude.pitch, degrees: 10)
        expectClose(attitude.tilt, degrees: 170)
    }

    // atan(|g_xy|) reads 40.9° here (and atan(|g_xy| / g_z) can never exceed 90°).
    @Test("A 60° tilt reads 60°, in any direction and at any magnitude (catches the atan(|g_xy|) shortcut)",
          arguments: [0.0, 30.0, 135.0, 270.0], [1.0, 0.5])
    func sixtyDegreeTilt(headingDegrees: Double, scale: Double) {
        let tilt = 60 * Double.pi / 180, heading = headingDegrees * .pi / 180
        let g = Vector3(x: sin(tilt) * cos(heading), y: sin(tilt) * sin(heading), z: cos(tilt)) * scale
        expectClose(Attitude(gravity: g).tilt, degrees: 60)
    }

    @Test("Tilt beyond 90° keeps growing to 180° (a shortcut through atan of a ratio would fold it back)",
          arguments: [100.0, 120.0, 150.0, 179.0])
    func overturned(tiltDegrees: Double) {
        let t = tiltDegrees * .pi / 180
        expectClose(Attitude(gravity: Vector3(x: 0, y: sin(t), z: cos(t))).tilt, degrees: tiltDegrees)
    }

    @Test("Roll, pitch and tilt match an orientation built from rotation matrices",
          arguments: [-180.0, -135, -90, -45, -10, -0.5, 0, 0.5, 10, 45, 89.9, 90, 135, 179.9],
          [-89.9, -60, -45, -10, 0, 10, 45, 60, 89.9])
    func matchesRotationMatrices(rollDegrees: Double, pitchDegrees: Double) {
        let worldFromBody = orientation(rollDegrees: rollDegrees, pitchDegrees: pitchDegrees)
        let attitude = Attitude(gravity: sensedUp(rollDegrees: rollDegrees, pitchDegrees: pitchDegrees))
        expectClose(attitude.roll, degrees: rollDegrees, "roll")
        expectClose(attitude.pitch, degrees: pitchDegrees, "pitch")
        // Tilt: the angle between the body's z axis, in the world, and up.
        let bodyZ = worldFromBody.apply(Vector3(x: 0, y: 0, z: 1))
        expectClose(attitude.tilt, degrees: degreesBetween(bodyZ, Vector3(x: 0, y: 0, z: 1)), tolerance: 1e-6, "tilt")
    }

    @Test("gravity(roll:pitch:) is the unit vector the rotation matrices predict",
          arguments: [-180.0, -90, -30, 0, 30, 90, 180], [-90.0, -45, 0, 45, 90])
    func gravityMatchesMatrices(rollDegrees: Double, pitchDegrees: Double) {
        let g = Attitude.gravity(roll: deg(rollDegrees), pitch: deg(pitchDegrees))
        expectClose(g, sensedUp(rollDegrees: rollDegrees, pitchDegrees: pitchDegrees))
        expectClose(g.magnitude, 1, tolerance: 1e-15)
    }

    @Test("gravity(roll:pitch:) → Attitude gives back roll and pitch for |pitch| < 90°",
          arguments: [-179.0, -120, -60, -1, 0, 0.01, 1, 60, 120, 180], [-89.99, -70, -1, 0, 1, 30, 89.99])
    func roundTrip(rollDegrees: Double, pitchDegrees: Double) {
        let attitude = Attitude(gravity: Attitude.gravity(roll: deg(rollDegrees), pitch: deg(pitchDegrees)))
        expectClose(attitude.roll, degrees: rollDegrees, "roll")
        expectClose(attitude.pitch, degrees: pitchDegrees, "pitch")
        #expect(attitude.tilt >= .zero && attitude.tilt <= deg(180))
    }

    @Test("isLevel includes the tolerance itself and rejects anything beyond it")
    func isLevelBoundary() {
        let attitude = Attitude(gravity: Attitude.gravity(roll: deg(0.2), pitch: .zero))
        #expect(attitude.isLevel(tolerance: attitude.tilt))
        #expect(attitude.isLevel(tolerance: deg(0.25)))
        #expect(!attitude.isLevel(tolerance: deg(0.15)))
        #expect(!attitude.isLevel(tolerance: deg(-1)))
    }

    @Test("A zero reading gives zero angles rather than crashing; NaN propagates as NaN")
    func degenerateReadings() {
        let zero = Attitude(gravity: .zero)
        #expect(zero.roll == .zero && zero.pitch == .zero && zero.tilt == .zero)
        let nan = Attitude(gravity: Vector3(x: .nan, y: 0, z: 1))
        #expect(nan.tilt.radians.isNaN)
        #expect(!nan.isLevel(tolerance: deg(180)))
    }
}

@Suite("Attitude, upright mount")
struct UprightAttitudeTests {
    // Device on a vertical face: x along the bar, y up, so the face's normal is device z.
    private func uprightAttitude(_ device: Vector3) -> Attitude {
        Attitude(gravity: Mount.upright.levelFrame(device))
    }

    @Test("Standing upright (y up) is level")
    func standingIsLevel() {
        let attitude = uprightAttitude(Vector3(x: 0, y: 1, z: 0))
        #expect(attitude.tilt == .zero && attitude.roll == .zero && attitude.pitch == .zero)
    }

    @Test("Raising the bar's +x end reads that slope as negative pitch, roll 0",
          arguments: [0.1, 1, 45, 89.9, -0.1, -45, -89.9])
    func barSlopeIsPitch(raisedDegrees: Double) {
        // Turning about the face normal (device z) by α tips up toward +x: up = (sin α, cos α, 0).
        let a = raisedDegrees * .pi / 180
        let attitude = uprightAttitude(Vector3(x: sin(a), y: cos(a), z: 0))
        expectClose(attitude.pitch, degrees: -raisedDegrees)
        expectClose(attitude.roll, degrees: 0)
        expectClose(attitude.tilt, degrees: abs(raisedDegrees))
    }

    @Test("Leaning the face out of vertical reads as roll", arguments: [1.0, -1, 45, -45, 89.9])
    func faceLeanIsRoll(leanDegrees: Double) {
        // Turning about the bar (device x) by β: up = (0, cos β, sin β) leans toward +z.
        let b = leanDegrees * .pi / 180
        let attitude = uprightAttitude(Vector3(x: 0, y: cos(b), z: sin(b)))
        expectClose(attitude.roll, degrees: -leanDegrees)
        expectClose(attitude.pitch, degrees: 0)
        expectClose(attitude.tilt, degrees: abs(leanDegrees))
    }

    @Test("Bar standing on its −x end: pitch 90°, tilt 90°")
    func barVertical() {
        let attitude = uprightAttitude(Vector3(x: -1, y: 0, z: 0))
        expectClose(attitude.pitch, degrees: 90)
        expectClose(attitude.tilt, degrees: 90)
    }

    @Test("Lying face up while configured upright reads 90°, roll −90°")
    func lyingFlat() {
        let attitude = uprightAttitude(Vector3(x: 0, y: 0, z: 1))
        expectClose(attitude.roll, degrees: -90)
        expectClose(attitude.tilt, degrees: 90)
    }

    @Test("Upside down (y pointing down) reads tilt 180°")
    func upsideDown() {
        let attitude = uprightAttitude(Vector3(x: 0, y: -1, z: 0))
        expectClose(attitude.tilt, degrees: 180)
        expectClose(attitude.roll, degrees: 180)
    }

    @Test("Roll, pitch and tilt of the bar match rotation matrices",
          arguments: [-180.0, -90, -45, -0.5, 0, 0.5, 45, 89.9, 90, 179.9], [-89.9, -45, -1, 0, 1, 60, 89.9])
    func matchesRotationMatrices(rollDegrees: Double, pitchDegrees: Double) {
        // Up in the bar's level frame, then in device coordinates: device x = level x,
        // device y = level z (up), device z = −level y.
        let level = sensedUp(rollDegrees: rollDegrees, pitchDegrees: pitchDegrees)
        let device = Vector3(x: level.x, y: level.z, z: -level.y)
        let attitude = uprightAttitude(device)
        expectClose(attitude.roll, degrees: rollDegrees, "roll")
        expectClose(attitude.pitch, degrees: pitchDegrees, "pitch")
        let barZ = orientation(rollDegrees: rollDegrees, pitchDegrees: pitchDegrees).apply(Vector3(x: 0, y: 0, z: 1))
        expectClose(attitude.tilt, degrees: degreesBetween(barZ, Vector3(x: 0, y: 0, z: 1)), tolerance: 1e-6, "tilt")
    }
}

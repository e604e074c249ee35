import Geometry
import GeometryTesting
import Level
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// True gravity in the device frame after turning the device 180° about the surface normal (its
/// own z when flat): the horizontal components change sign.
private func turned(_ u: Vector3) -> Vector3 { Vector3(x: -u.x, y: -u.y, z: u.z) }

/// Level frame of the upright mount (x, −z, y) back to the device frame.
private func uprightDevice(_ level: Vector3) -> Vector3 { Vector3(x: level.x, y: level.z, z: -level.y) }

private func reversalReason(_ first: Vector3, _ second: Vector3, _ mount: Mount = .flat) -> ReversalError.Reason? {
    expectThrows(ReversalError.self) { _ = try ReversalCalibration(first: first, second: second, mount: mount) }?.reason
}

@Suite("ReversalCalibration")
struct ReversalCalibrationTests {
    @Test("Worked by hand: half the sum is the zero error, half the difference the surface")
    func byHand() throws {
        let z = 0.9997
        let reversal = try ReversalCalibration(
            first: Vector3(x: 0.010, y: 0.020, z: z), second: Vector3(x: 0.006, y: -0.010, z: z), mount: .flat
        )
        expectClose(reversal.zeroOffset, Vector3(x: 0.008, y: 0.005, z: 0), tolerance: 1e-15)
        // Surface (0.002, 0.015, z): roll = atan2(0.015, z), pitch = atan2(−0.002, √(0.015² + z²)).
        expectClose(try #require(reversal.surfaceRoll), degrees: atan2(0.015, z) * 180 / .pi, tolerance: 1e-12)
        expectClose(reversal.surfacePitch, degrees: atan2(-0.002, (0.015 * 0.015 + z * z).squareRoot()) * 180 / .pi,
                    tolerance: 1e-12)
        // Signs: +y higher on the surface is a positive roll; a zero error reading +x is a negative pitch.
        #expect(try #require(reversal.surfaceRoll) > .zero)
        #expect(try #require(reversal.zeroRoll) > .zero && reversal.zeroPitch < .zero)
    }

    @Test("Flat: known surface tilt and zero offset are both recovered exactly, any signs")
    func flatRecovers() throws {
        var random = SplitMix64(seed: 21)
        for _ in 0..<200 {
            let roll = random.uniform(-5...5), pitch = random.uniform(-5...5)
            let d = Vector3(x: random.uniform(-0.04...0.04), y: random.uniform(-0.04...0.04), z: 0)
            let u = sensedUp(rollDegrees: roll, pitchDegrees: pitch)
            let reversal = try ReversalCalibration(first: u + d, second: turned(u) + d, mount: .flat)
            expectClose(reversal.zeroOffset, d, tolerance: 1e-15)
            expectClose(try #require(reversal.surfaceRoll), degrees: roll, tolerance: 1e-9)
            expectClose(reversal.surfacePitch, degrees: pitch, tolerance: 1e-9)
            // On a truly level surface this instrument reads (dx, dy, 1).
            expectClose(reversal.levelReading, Vector3(x: d.x, y: d.y, z: 1), tolerance: 1e-12)
            let zero = Attitude(gravity: Vector3(x: d.x, y: d.y, z: 1))
            expectClose(try #require(reversal.zeroRoll), degrees: zero.roll.degrees, tolerance: 1e-12)
            expectClose(reversal.zeroPitch, degrees: zero.pitch.degrees, tolerance: 1e-12)
        }
    }

    @Test("A vertical offset d_z cannot be seen by the turn; it scales the surface angles by only d_z / g_z")
    func verticalOffset() throws {
        let u = sensedUp(rollDegrees: 0.4, pitchDegrees: -0.7)
        let d = Vector3(x: 0.02, y: -0.03, z: 0.04)
        let reversal = try ReversalCalibration(first: u + d, second: turned(u) + d, mount: .flat)
        expectClose(reversal.zeroOffset, Vector3(x: d.x, y: d.y, z: 0), tolerance: 1e-15)
        expectClose(try #require(reversal.surfaceRoll), degrees: 0.4, tolerance: 0.4 * 0.045)
        expectClose(reversal.surfacePitch, degrees: -0.7, tolerance: 0.7 * 0.045)
    }

    @Test("A tilted mounting (a rotation, not an offset) is recovered to first order, and ZeroReference undoes it")
    func tiltedMounting() throws {
        let mounting = try #require(Rotation(axis: Vector3(x: 0.3, y: -1, z: 0.2), angle: Angle(degrees: 0.6)))
        for (roll, pitch) in [(0.5, -0.3), (-2.0, 1.5), (0.0, 0.0)] {
            let u = sensedUp(rollDegrees: roll, pitchDegrees: pitch)
            let reversal = try ReversalCalibration(first: mounting.apply(u), second: mounting.apply(turned(u)), mount: .flat)
            // Second order: about 0.6° × 2.5° in radians, a few thousandths of a degree.
            expectClose(try #require(reversal.surfaceRoll), degrees: roll, tolerance: 0.005)
            expectClose(reversal.surfacePitch, degrees: pitch, tolerance: 0.005)
            let zero = try #require(ZeroReference(referenceGravity: reversal.levelReading))
            let corrected = Attitude(gravity: zero.corrected(mounting.apply(u)))
            expectClose(corrected.roll, degrees: roll, tolerance: 0.005)
            expectClose(corrected.pitch, degrees: pitch, tolerance: 0.005)
            // What the mounting itself reads on a level surface, recovered to first order.
            let truth = Attitude(gravity: mounting.apply(Vector3(x: 0, y: 0, z: 1)))
            expectClose(reversal.zeroPitch, degrees: truth.pitch.degrees, tolerance: 0.005)
            expectClose(try #require(reversal.zeroRoll), degrees: truth.roll.degrees, tolerance: 0.005)
        }
    }

    @Test("The zero offset folded into a calibration makes both positions read the surface, turned")
    func foldIntoCalibration() throws {
        let u = sensedUp(rollDegrees: 1.2, pitchDegrees: 0.8)
        let d = Vector3(x: -0.015, y: 0.025, z: 0)
        let reversal = try ReversalCalibration(first: u + d, second: turned(u) + d, mount: .flat)
        let calibration = try Calibration.identity.shifted(by: reversal.zeroOffset)
        expectClose(calibration.apply(u + d), u, tolerance: 1e-15)
        expectClose(calibration.apply(turned(u) + d), turned(u), tolerance: 1e-15)
    }

    @Test("Upright: the slope along the bar and its zero error, whatever the lean in each position")
    func upright() throws {
        var random = SplitMix64(seed: 22)
        for _ in 0..<200 {
            let slope = random.uniform(-5...5)
            // Held by hand, the lean of the face differs between the two positions.
            let lean1 = random.uniform(-3...3), lean2 = random.uniform(-3...3)
            let dx = random.uniform(-0.04...0.04)
            let d = Vector3(x: dx, y: 0, z: random.uniform(-0.04...0.04))  // z is the lean axis: ignored
            let first = uprightDevice(sensedUp(rollDegrees: lean1, pitchDegrees: slope)) + d
            let second = uprightDevice(sensedUp(rollDegrees: lean2, pitchDegrees: -slope)) + d
            let reversal = try ReversalCalibration(first: first, second: second, mount: .upright)
            #expect(reversal.surfaceRoll == nil && reversal.zeroRoll == nil)
            expectClose(reversal.zeroOffset, Vector3(x: dx, y: 0, z: 0), tolerance: 1e-15)
            // An offset on the lean axis slightly changes the part across the bar: under 0.5 % here.
            expectClose(reversal.surfacePitch, degrees: slope, tolerance: abs(slope) * 5e-3 + 1e-9)
            expectClose(reversal.zeroPitch, degrees: atan2(-dx, 1) * 180 / .pi, tolerance: abs(dx) * 180 / .pi * 5e-3 + 1e-9)
        }
        // A custom remap equal to upright behaves the same.
        let u = sensedUp(rollDegrees: 0, pitchDegrees: 2)
        let d = Vector3(x: 0.01, y: 0, z: 0)
        let custom = try ReversalCalibration(
            first: uprightDevice(u) + d, second: uprightDevice(turned(u)) + d, mount: try Mount(parsing: "x,-z,y")
        )
        expectClose(custom.surfacePitch, degrees: 2, tolerance: 1e-9)
        expectClose(custom.zeroOffset, d, tolerance: 1e-15)
    }

    @Test("Refused: magnitudes that differ, a different spot, too much tilt, not 1 g, NaN, another mount")
    func refusals() throws {
        let u = sensedUp(rollDegrees: 1, pitchDegrees: 0.5)
        guard case .magnitudesDiffer(let difference, 0.05) = reversalReason(u, turned(u) * 1.06) else {
            Issue.record("expected differing magnitudes refused")
            return
        }
        expectClose(difference, 0.06, tolerance: 1e-12)
        // Another spot, tilted 9° instead of 2°: same magnitude, different vertical part.
        let other = sensedUp(rollDegrees: 9, pitchDegrees: 0)
        guard case .verticalsDiffer = reversalReason(sensedUp(rollDegrees: 2, pitchDegrees: 0), turned(other)) else {
            Issue.record("expected a different spot to be refused")
            return
        }
        let steep = sensedUp(rollDegrees: 12, pitchDegrees: 0)
        guard case .tooTilted(position: 1, _, _) = reversalReason(steep, turned(steep)) else {
            Issue.record("expected 12° refused")
            return
        }
        // Upside down is the most tilted of all.
        guard case .tooTilted(position: 2, _, _) = reversalReason(u, -u) else {
            Issue.record("expected a flipped device refused")
            return
        }
        guard case .magnitudeOutOfRange(position: 1, _, _) = reversalReason(u * 0.5, turned(u) * 0.5) else {
            Issue.record("expected half a g refused")
            return
        }
        #expect(reversalReason(Vector3(x: .nan, y: 0, z: 1), u) == .notFinite)
        #expect(reversalReason(u, turned(u), try Mount(parsing: "y,-x,z")) == .unsupportedMount("y,-x,z"))
        _ = try ReversalCalibration(first: u, second: turned(u), mount: try Mount(parsing: "x,y,z"))
        let message = expectThrows(ReversalError.self) {
            _ = try ReversalCalibration(first: u, second: turned(u) * 1.06, mount: .flat)
        }?.description ?? ""
        #expect(message.contains("60 mg") && message.contains("turn it 180° about the vertical"))
    }
}

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

/// A sensor with every kind of error: gains off by up to 3.5 %, cross-axis terms of 1 %, offsets
/// near the datasheet's limits.
private let knownA = DomainMatrix(
    rows: Vector3(x: 1.035, y: 0.01, z: -0.008), Vector3(x: -0.009, y: 0.992, z: 0.006), Vector3(x: 0.007, y: -0.01, z: 1.012)
)
private let knownB = Vector3(x: 0.034, y: -0.027, z: 0.039)

private func fitReason(_ poses: [SixPointFit.Pose]) -> SixPointFitError.Reason? {
    expectThrows(SixPointFitError.self) { _ = try SixPointFit(poses: poses) }?.reason
}

private func fitMessage(_ poses: [SixPointFit.Pose]) -> String {
    expectThrows(SixPointFitError.self) { _ = try SixPointFit(poses: poses) }?.description ?? ""
}

/// The full 18 × 12 least squares, written independently: unknowns θ = (A row-major, b), normal
/// equations by brute force, Gaussian elimination with partial pivoting.
private func bruteForceFit(_ poses: [(g: Vector3, raw: Vector3)]) -> (DomainMatrix, Vector3) {
    var normal = [[Double]](repeating: [Double](repeating: 0, count: 13), count: 12)
    for pose in poses {
        let g = [pose.g.x, pose.g.y, pose.g.z], raw = [pose.raw.x, pose.raw.y, pose.raw.z]
        for r in 0..<3 {
            // The equation raw_r = Σ_k A[r][k] g_k + b_r, as a row of 12 coefficients.
            var row = [Double](repeating: 0, count: 12)
            for k in 0..<3 { row[r * 3 + k] = g[k] }
            row[9 + r] = 1
            for i in 0..<12 {
                for j in 0..<12 { normal[i][j] += row[i] * row[j] }
                normal[i][12] += row[i] * raw[r]
            }
        }
    }
    for column in 0..<12 {
        let pivot = (column..<12).max { abs(normal[$0][column]) < abs(normal[$1][column]) }!
        normal.swapAt(column, pivot)
        for row in 0..<12 where row != column {
            let factor = normal[row][column] / normal[column][column]
            for j in column...12 { normal[row][j] -= factor * normal[column][j] }
        }
    }
    let theta = (0..<12).map { normal[$0][12] / normal[$0][$0] }
    var a = DomainMatrix.zero
    for r in 0..<3 { for k in 0..<3 { a[r, k] = theta[r * 3 + k] } }
    return (a, Vector3(x: theta[9], y: theta[10], z: theta[11]))
}

@Suite("SixPointFit")
struct SixPointFitTests {
    // MARK: Faces

    @Test("Face gravity: the axis that points up reads +1 g")
    func faceGravity() {
        #expect(Face.plusZ.gravity == Vector3(x: 0, y: 0, z: 1))
        #expect(Face.minusX.gravity == Vector3(x: -1, y: 0, z: 0))
        #expect(Face.allCases.map(\.rawValue) == ["+x", "-x", "+y", "-y", "+z", "-z"])
        #expect(Face(rawValue: "-y") == .minusY)
        #expect(Face.plusY.description == "+y up")
    }

    @Test("detect finds each face from a raw reading with the chip's errors")
    func detect() throws {
        for face in Face.allCases {
            #expect(try Face.detect(sensorReading(knownA, knownB, face.gravity)) == face)
            #expect(try Face.detect(face.gravity * 0.9) == face)
        }
    }

    @Test("detect accepts 9.9° off an axis, refuses 10.1° and 15°, with the angle and a hint")
    func detectLimit() throws {
        let tipped = { (degrees: Double) in
            Vector3(x: sin(degrees * .pi / 180), y: 0, z: cos(degrees * .pi / 180))
        }
        #expect(try Face.detect(tipped(9.9)) == .plusZ)
        let error = try #require(expectThrows(SixPointFitError.self) { _ = try Face.detect(tipped(10.1)) })
        guard case .notNearAnAxis(let nearest, let angle, _) = error.reason else {
            Issue.record("unexpected \(error.reason)")
            return
        }
        #expect(nearest == .plusZ)
        expectClose(angle, degrees: 10.1, tolerance: 1e-9)
        #expect(try Face.detect(tipped(15), maxAngle: Angle(degrees: 20)) == .plusZ)
        let message = expectThrows(SixPointFitError.self) { _ = try Face.detect(tipped(15)) }?.description ?? ""
        #expect(message.contains("15.0°") && message.contains("lay it flat"))
        // Halfway between two axes is far from both.
        #expect(throws: SixPointFitError.self) { try Face.detect(Vector3(x: 1, y: 1, z: 0)) }
    }

    @Test("detect refuses a reading with no direction")
    func detectNoDirection() {
        #expect(expectThrows(SixPointFitError.self) { _ = try Face.detect(.zero) }?.reason == .noDirection)
        #expect(expectThrows(SixPointFitError.self) { _ = try Face.detect(Vector3(x: .nan, y: 0, z: 1)) }?.reason == .noDirection)
    }

    @Test("remaining lists the faces still to do, in canonical order")
    func remaining() {
        #expect(Face.remaining(after: []) == Face.allCases)
        #expect(Face.remaining(after: [.plusZ, .minusX]) == [.plusX, .plusY, .minusY, .minusZ])
        #expect(Face.remaining(after: [.plusZ, .plusZ]) == [.plusX, .minusX, .plusY, .minusY, .minusZ])
        #expect(Face.remaining(after: Face.allCases).isEmpty)
    }

    // MARK: The fit

    @Test("Noise-free faces: A (with cross-axis terms) and b recovered exactly, residual 0")
    func recoversKnown() throws {
        var random = SplitMix64(seed: 1)
        let fit = try SixPointFit(poses: facePoses(knownA, knownB, random: &random))
        expectClose(fit.sensitivity, knownA, tolerance: 1e-14)
        expectClose(fit.bias, knownB, tolerance: 1e-14)
        #expect(fit.residualRMSMilliG < 1e-9 && fit.residualMaxMilliG < 1e-9)
        #expect(fit.residuals.count == 6)
        expectClose(fit.calibration.offset, knownB, tolerance: 1e-14)
        expectClose(fit.calibration.matrix * knownA, .identity, tolerance: 1e-13)
    }

    @Test("Order of the poses does not matter")
    func order() throws {
        var random = SplitMix64(seed: 1)
        let poses = facePoses(knownA, knownB, random: &random)
        let forward = try SixPointFit(poses: poses), backward = try SixPointFit(poses: poses.reversed())
        expectClose(forward.sensitivity, backward.sensitivity, tolerance: 1e-15)
        expectClose(forward.bias, backward.bias, tolerance: 1e-15)
    }

    @Test("Random sensors within the chip's errors, noise-free: recovered to 1e-12")
    func randomNoiseFree() throws {
        var random = SplitMix64(seed: 2)
        for _ in 0..<100 {
            let a = random.typicalSensitivity(), b = random.typicalOffset()
            let fit = try SixPointFit(poses: facePoses(a, b, random: &random))
            expectClose(fit.sensitivity, a, tolerance: 1e-12)
            expectClose(fit.bias, b, tolerance: 1e-12)
        }
    }

    @Test("Random sensors, means with 20 µg noise (a few thousand samples each): recovered to 1e-4")
    func randomNoisy() throws {
        var random = SplitMix64(seed: 3)
        let noise = Vector3(x: 2e-5, y: 2e-5, z: 2e-5)
        for _ in 0..<100 {
            let a = random.typicalSensitivity(), b = random.typicalOffset()
            let fit = try SixPointFit(poses: facePoses(a, b, meanNoise: noise, random: &random))
            expectClose(fit.sensitivity, a, tolerance: 1e-4)
            expectClose(fit.bias, b, tolerance: 1e-4)
        }
    }

    @Test("Means of real noisy samples (ADXL345 at 100 Hz, 2000 each, through GravityAverage): recovered to 5e-4")
    func fromSamples() throws {
        var random = SplitMix64(seed: 4)
        let sigma = TestChipNoise.rms(odrHz: 100)
        let poses = try Face.allCases.map { face in
            var average = GravityAverage()
            for _ in 0..<2000 {
                average.add(sensorReading(knownA, knownB, face.gravity) + random.gaussian(sigma: sigma))
            }
            return try #require(SixPointFit.Pose(face: face, average: average))
        }
        #expect(poses.allSatisfy { $0.sampleCount == 2000 && $0.standardDeviation != nil })
        let fit = try SixPointFit(poses: poses)
        // σ of a mean is about 4.3 mg / √2000 ≈ 0.1 mg on z.
        expectClose(fit.sensitivity, knownA, tolerance: 5e-4)
        expectClose(fit.bias, knownB, tolerance: 5e-4)
        #expect(fit.residualRMSMilliG > 0.01 && fit.residualRMSMilliG < 0.5)
    }

    @Test("Six faces: the closed form b = mean, A column k = (m(+k) − m(−k)) / 2, and the 18 × 12 solve agree")
    func closedForm() throws {
        var random = SplitMix64(seed: 5)
        for _ in 0..<20 {
            let poses = facePoses(random.typicalSensitivity(), random.typicalOffset(),
                                  meanNoise: Vector3(x: 1e-3, y: 1e-3, z: 1e-3), random: &random)
            let m = Dictionary(uniqueKeysWithValues: poses.map { ($0.face, $0.mean) })
            let b = poses.map(\.mean).reduce(.zero, +) / 6
            let a = DomainMatrix(
                columns: (m[.plusX]! - m[.minusX]!) / 2, (m[.plusY]! - m[.minusY]!) / 2, (m[.plusZ]! - m[.minusZ]!) / 2
            )
            let fit = try SixPointFit(poses: poses)
            expectClose(fit.sensitivity, a, tolerance: 1e-14)
            expectClose(fit.bias, b, tolerance: 1e-14)
            let (bruteA, bruteB) = bruteForceFit(poses.map { ($0.face.gravity, $0.mean) })
            expectClose(fit.sensitivity, bruteA, tolerance: 1e-12)
            expectClose(fit.bias, bruteB, tolerance: 1e-12)
            // And the residual of both faces of an axis is b − (m(+k) + m(−k)) / 2.
            for (index, pose) in poses.enumerated() {
                let opposite = Face.allCases[index ^ 1]
                expectClose(fit.residuals[index], b - (pose.mean + m[opposite]!) / 2, tolerance: 1e-14)
            }
        }
    }

    @Test("Residual with noise is about the noise of a mean; one pair offset by δ shows 2|δ|/3 max")
    func residualMeaning() throws {
        var random = SplitMix64(seed: 6)
        // Isotropic mean noise σ gives E|r|² = σ² per pose, so the RMS is about σ = 0.1 mg.
        var total = 0.0
        for _ in 0..<200 {
            let fit = try SixPointFit(poses: facePoses(knownA, knownB, meanNoise: Vector3(x: 1e-4, y: 1e-4, z: 1e-4),
                                                       random: &random))
            total += fit.residualRMSMilliG * fit.residualRMSMilliG
        }
        expectClose((total / 200).squareRoot(), 0.1, tolerance: 0.01)
        // The sensor's x pair reads 3 mg high on z (say the device was not square on those faces).
        let delta = Vector3(x: 0, y: 0, z: 0.003)
        let poses = facePoses(knownA, knownB, random: &random).map { pose in
            [.plusX, .minusX].contains(pose.face) ? SixPointFit.Pose(face: pose.face, mean: pose.mean + delta) : pose
        }
        let fit = try SixPointFit(poses: poses)
        expectClose(fit.residualMaxMilliG, 2, tolerance: 1e-9)
        expectClose(fit.residualRMSMilliG, (12.0 / 54).squareRoot() * 3, tolerance: 1e-9)
    }

    @Test("The calibration turns each raw face mean into ±1 g on the right axis")
    func facesCorrected() throws {
        var random = SplitMix64(seed: 7)
        for _ in 0..<20 {
            let poses = facePoses(random.typicalSensitivity(), random.typicalOffset(), random: &random)
            let fit = try SixPointFit(poses: poses)
            for pose in poses {
                expectClose(fit.calibration.apply(pose.mean), pose.face.gravity, tolerance: 1e-12, "\(pose.face)")
            }
        }
    }

    @Test("After calibration, roll, pitch and tilt of random attitudes are within 0.01° (noise-free: 1e-9°)")
    func attitudesCorrected() throws {
        var random = SplitMix64(seed: 8)
        for noisy in [false, true] {
            for _ in 0..<20 {
                let a = random.typicalSensitivity(), b = random.typicalOffset()
                let noise = noisy ? Vector3(x: 3e-5, y: 3e-5, z: 3e-5) : .zero
                let fit = try SixPointFit(poses: facePoses(a, b, meanNoise: noise, random: &random))
                for _ in 0..<50 {
                    let roll = random.uniform(-60...60), pitch = random.uniform(-60...60)
                    let truth = sensedUp(rollDegrees: roll, pitchDegrees: pitch)
                    let corrected = Attitude(gravity: fit.calibration.apply(sensorReading(a, b, truth)))
                    let tolerance = noisy ? 0.01 : 1e-9
                    expectClose(corrected.roll, degrees: roll, tolerance: tolerance, "roll")
                    expectClose(corrected.pitch, degrees: pitch, tolerance: tolerance, "pitch")
                    expectClose(corrected.tilt, degrees: degreesBetween(truth, Vector3(x: 0, y: 0, z: 1)),
                                tolerance: tolerance, "tilt")
                }
            }
        }
    }

    @Test("The general fit takes repeated and tilted poses and still recovers A and b")
    func generalPoses() throws {
        var random = SplitMix64(seed: 9)
        for _ in 0..<20 {
            let a = random.typicalSensitivity(), b = random.typicalOffset()
            var observations = Face.allCases.map {
                SixPointFit.Observation(trueGravity: $0.gravity, mean: sensorReading(a, b, $0.gravity))
            }
            observations += (0..<6).map { _ in
                let g = random.unitVector()
                return SixPointFit.Observation(trueGravity: g * 3, mean: sensorReading(a, b, g))  // length ignored
            }
            observations.append(observations[0])
            let fit = try SixPointFit(observations: observations)
            expectClose(fit.sensitivity, a, tolerance: 1e-12)
            expectClose(fit.bias, b, tolerance: 1e-12)
            let (bruteA, bruteB) = bruteForceFit(observations.map { ($0.trueGravity.normalized!, $0.mean) })
            expectClose(fit.sensitivity, bruteA, tolerance: 1e-12)
            expectClose(fit.bias, bruteB, tolerance: 1e-12)
        }
        // Four non-coplanar poses are the minimum: 12 equations, 12 unknowns.
        let tetrahedron = [Vector3(x: 1, y: 1, z: 1), Vector3(x: 1, y: -1, z: -1), Vector3(x: -1, y: 1, z: -1),
                           Vector3(x: -1, y: -1, z: 1)].map { $0.normalized! }
        let fit = try SixPointFit(observations: tetrahedron.map {
            SixPointFit.Observation(trueGravity: $0, mean: sensorReading(knownA, knownB, $0))
        })
        expectClose(fit.sensitivity, knownA, tolerance: 1e-12)
    }

    // MARK: Refusals

    @Test("Five faces are refused, naming the one that remains")
    func fiveFaces() {
        var random = SplitMix64(seed: 10)
        let poses = facePoses(knownA, knownB, random: &random).filter { $0.face != .minusY }
        #expect(fitReason(poses) == .missingFaces([.minusY]))
        #expect(fitMessage(poses).contains("still to do: -y up"))
        #expect(fitReason([]) == .missingFaces(Face.allCases))
    }

    @Test("A face given twice is refused, naming it")
    func duplicate() {
        var random = SplitMix64(seed: 11)
        var poses = facePoses(knownA, knownB, random: &random)
        poses.append(poses[2])
        #expect(fitReason(poses) == .duplicateFace(.plusY))
        #expect(fitMessage(poses).contains("+y up was measured twice"))
        // All six labelled the same: the first repeat is named.
        let same = poses.map { SixPointFit.Pose(face: .plusZ, mean: $0.mean) }
        #expect(fitReason(same) == .duplicateFace(.plusZ))
    }

    @Test("A face 15° off its axis is refused; a mislabelled face is named with what it looks like")
    func offFace() throws {
        var random = SplitMix64(seed: 12)
        var poses = facePoses(knownA, knownB, random: &random)
        poses[4].mean = sensedUp(rollDegrees: 15, pitchDegrees: 0)  // +z, tipped 15°
        guard case .poseOffFace(.plusZ, let angle, nil) = fitReason(poses) else {
            Issue.record("expected +z refused as off its face")
            return
        }
        expectClose(angle, degrees: 15, tolerance: 1e-9)
        #expect(fitMessage(poses).contains("Lay the device square"))
        var swapped = facePoses(knownA, knownB, random: &random)
        swapped[0].face = .minusY
        swapped[3].face = .plusX
        guard case .poseOffFace(let face, _, let looksLike) = fitReason(swapped) else {
            Issue.record("expected a mislabelled face")
            return
        }
        #expect(face == .minusY && looksLike == .plusX)
        #expect(fitMessage(swapped).contains("mislabelled"))
    }

    @Test("All six faces with the same reading are refused")
    func allSameReading() {
        let poses = Face.allCases.map { SixPointFit.Pose(face: $0, mean: Vector3(x: 0, y: 0, z: 1)) }
        guard case .poseOffFace = fitReason(poses) else {
            Issue.record("expected the faces to be refused as not matching their readings")
            return
        }
        // The general fit has no faces to check, but cannot fit poses that all point one way.
        let observations = (0..<6).map { _ in SixPointFit.Observation(trueGravity: Vector3(x: 0, y: 0, z: 1), mean: Vector3(x: 0, y: 0, z: 1)) }
        #expect(expectThrows(SixPointFitError.self) { _ = try SixPointFit(observations: observations) }?.reason == .posesDoNotSpan)
        // Nor poses all in one plane (no z ever).
        let planar = [Face.plusX, .minusX, .plusY, .minusY].map {
            SixPointFit.Observation(trueGravity: $0.gravity, mean: sensorReading(knownA, knownB, $0.gravity))
        }
        #expect(expectThrows(SixPointFitError.self) { _ = try SixPointFit(observations: planar) }?.reason == .posesDoNotSpan)
    }

    @Test("A mean far from 1 g is refused: the device moved, or this is not an accelerometer at rest")
    func magnitude() {
        var random = SplitMix64(seed: 13)
        var poses = facePoses(knownA, knownB, random: &random)
        poses[1].mean = poses[1].mean * 1.3
        guard case .magnitudeOutOfRange(.minusX, _, _) = fitReason(poses) else {
            Issue.record("expected −x refused for its magnitude")
            return
        }
        #expect(fitMessage(poses).contains("not about 1 g") && fitMessage(poses).contains("moved"))
        poses[1].mean = Vector3(x: .nan, y: 0, z: 0)
        guard case .magnitudeOutOfRange(.minusX, _, _) = fitReason(poses) else {
            Issue.record("expected a NaN mean refused")
            return
        }
    }

    @Test("A singular sensitivity is refused (a dead axis, magnitude checks widened to let it through)")
    func illConditioned() {
        var dead = knownA
        dead[0, 0] = 0  // x reads only its offset and cross-talk
        dead[0, 1] = 0
        dead[0, 2] = 0
        let observations = Face.allCases.map {
            SixPointFit.Observation(trueGravity: $0.gravity, mean: sensorReading(dead, knownB, $0.gravity))
        }
        let wide = SixPointFit.Limits(magnitudeRange: 0...2)
        guard case .illConditioned = expectThrows(SixPointFitError.self, {
            _ = try SixPointFit(observations: observations, limits: wide)
        })?.reason else {
            Issue.record("expected ill-conditioned")
            return
        }
    }

    @Test("A fit whose calibration is implausible is refused with the calibration's reason")
    func implausible() throws {
        var coupled = DomainMatrix.identity
        coupled[0, 1] = 0.15  // +y leaks 15 % into x: about 8.5° off the face, but within the angle limit
        var random = SplitMix64(seed: 14)
        let poses = facePoses(coupled, .zero, random: &random)
        guard case .implausible(let error) = fitReason(poses) else {
            Issue.record("expected implausible")
            return
        }
        guard case .crossAxisTooLarge(row: "x", column: "y", _, _) = error.reason else {
            Issue.record("unexpected \(error.reason)")
            return
        }
        #expect(fitMessage(poses).contains("Recalibrate"))
    }
}
